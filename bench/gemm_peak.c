/* gemm_peak: the machine's measured single-precision GEMM peak, the yardstick for dtrain's
 * achieved GFLOP/s. Times OpenBLAS cblas_sgemm (C = A * B, row-major, no transposes) on large
 * square matrices at each thread count given on the command line and prints, per thread count,
 * the best GFLOP/s over all sizes and repetitions (2 * n^3 flops per call; one untimed call per
 * size first). Inputs are uniform in [-1, 1) so that no denormals appear.
 *
 *   usage: gemm_peak [THREADS...]          (default: 1 2)
 *   output: one line per thread count:  sgemm threads=T best_gflops=G n=N
 *
 * Build: cc -O2 bench/gemm_peak.c -I/usr/include/x86_64-linux-gnu/openblas-pthread -lopenblas
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float* random_matrix(int n, unsigned* seed) {
  float* m = malloc(sizeof(float) * (size_t)n * (size_t)n);
  if (!m) {
    fprintf(stderr, "gemm_peak: out of memory for n=%d\n", n);
    exit(1);
  }
  for (size_t i = 0; i < (size_t)n * (size_t)n; ++i) {
    *seed = *seed * 1664525u + 1013904223u;
    m[i] = (float)((*seed >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0);
  }
  return m;
}

int main(int argc, char** argv) {
  static const int kSizes[] = {2048, 3072, 4096};
  static const int kRepeats = 3;
  int default_threads[] = {1, 2};
  int n_threads = argc > 1 ? argc - 1 : 2;
  unsigned seed = 1701;

  for (int t = 0; t < n_threads; ++t) {
    const int threads = argc > 1 ? atoi(argv[t + 1]) : default_threads[t];
    if (threads <= 0) {
      fprintf(stderr, "gemm_peak: thread counts must be positive, got '%s'\n", argv[t + 1]);
      return 2;
    }
    openblas_set_num_threads(threads);
    double best = 0.0;
    int best_n = 0;
    for (size_t s = 0; s < sizeof(kSizes) / sizeof(kSizes[0]); ++s) {
      const int n = kSizes[s];
      float* a = random_matrix(n, &seed);
      float* b = random_matrix(n, &seed);
      float* c = calloc((size_t)n * (size_t)n, sizeof(float));
      if (!c) return 1;
      for (int r = 0; r <= kRepeats; ++r) {
        const double start = now_seconds();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f,
                    c, n);
        const double gflops = 2.0 * n * (double)n * n / (now_seconds() - start) * 1e-9;
        if (r > 0 && gflops > best) best = gflops, best_n = n;  /* r == 0 warms up */
      }
      free(a);
      free(b);
      free(c);
    }
    printf("sgemm threads=%d best_gflops=%.1f n=%d\n", threads, best, best_n);
    fflush(stdout);
  }
  return 0;
}
