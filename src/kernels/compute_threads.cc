#include "kernels/compute_threads.h"

#include <cblas.h>
#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "core/machine_cores.h"

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

ThreadChoice DefaultComputeThreads() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (env != nullptr && std::atoi(env) > 0) {
    return {std::atoi(env), std::string("OMP_NUM_THREADS=") + env};
  }
  const int cores = UsableCores();
  const std::string usable =
      std::to_string(cores) + (cores == 1 ? " usable core" : " usable cores");
  const std::optional<double> others = CoresBusyWithOthers(std::chrono::milliseconds(100));
  if (!others) return {cores, usable + " (/proc/stat unreadable: their load unknown)"};
  // A core counts as taken from half a core's use on: from there, a thread sharing it runs
  // slower than one thread fewer would.
  const int busy = std::min(cores - 1, static_cast<int>(std::floor(*others + 0.5)));
  char load[32];
  std::snprintf(load, sizeof(load), "%.1f", *others);
  if (busy <= 0) return {cores, usable + ", other processes using " + load + " of them"};
  return {cores - busy, usable + ", other processes using " + load +
                            " of them; --threads=" + std::to_string(cores) + " to compute on all"};
}

}  // namespace dtrain::kernels
