// How the solver's loops over every element of a parameter run: vectorised (`omp simd`), and on
// every compute thread once a parameter has kThreadedUpdateElements elements; for fewer, waking
// the threads costs more than it saves. Each element's arithmetic is the same either way, so
// results do not depend on the thread count. (The loops' `if` clause names `parallel`: unnamed,
// it would switch off the vectorisation too.)
#pragma once

#include <cmath>
#include <cstdint>

namespace dtrain {

constexpr int64_t kThreadedUpdateElements = int64_t{1} << 15;

// The L2 norm of x[0..n), summed in double in one serial pass in a fixed order: every rank of a
// data-parallel job, whatever its threads or vector width, gets the very same norm (LARS's and
// LAMB's trust ratios depend on it), so the replicas stay identical.
inline float SerialL2Norm(const float* x, int64_t n) {
  double sumsq = 0;
  for (int64_t j = 0; j < n; ++j) sumsq += static_cast<double>(x[j]) * x[j];
  return static_cast<float>(std::sqrt(sumsq));
}

}  // namespace dtrain
