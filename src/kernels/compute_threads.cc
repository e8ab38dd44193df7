#include "kernels/compute_threads.h"

#include <cblas.h>
#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace dtrain::kernels {
namespace {

void FlushDenormalsOnThisThread() {
#if defined(__x86_64__) || defined(__i386__)  // other CPUs: their default
  _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
  _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
}

}  // namespace

void SetComputeThreads(int threads) {
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);  // oneDNN's thread pool
  // Threads created later start from the creating thread's setting.
  FlushDenormalsOnThisThread();
#pragma omp parallel num_threads(threads)
  FlushDenormalsOnThisThread();
}

int DefaultComputeThreads() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (env != nullptr && std::atoi(env) > 0) return std::atoi(env);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace dtrain::kernels
