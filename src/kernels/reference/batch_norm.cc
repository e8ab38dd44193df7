#include "kernels/reference/batch_norm.h"

#include <algorithm>
#include <cmath>

namespace dtrain::reference {

StatusOr<std::unique_ptr<kernels::BatchNormKernel>> BatchNorm::Create(
    const kernels::BatchNormProblem& problem, const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::BatchNormKernel>(new BatchNorm(problem));
}

BatchNorm::BatchNorm(const kernels::BatchNormProblem& problem)
    : problem_(problem),
      normalized_(static_cast<size_t>(problem.num * problem.channels * problem.spatial)),
      stddev_(static_cast<size_t>(problem.channels)) {}

void BatchNorm::Forward(const float* x, float* y, float* mean, float* variance) {
  const int64_t num = problem_.num, spatial = problem_.spatial;
  const double m = static_cast<double>(num) * spatial;  // elements per channel
  for (int64_t c = 0; c < problem_.channels; ++c) {
    if (!problem_.global_stats) {
      double sum = 0, sum_sq = 0;
      for (int64_t n = 0; n < num; ++n) {
        for (int64_t s = 0; s < spatial; ++s) sum += x[At(n, c) + s];
      }
      const double batch_mean = m > 0 ? sum / m : 0;
      for (int64_t n = 0; n < num; ++n) {
        for (int64_t s = 0; s < spatial; ++s) {
          const double d = x[At(n, c) + s] - batch_mean;
          sum_sq += d * d;
        }
      }
      mean[c] = static_cast<float>(batch_mean);
      variance[c] = m > 0 ? static_cast<float>(sum_sq / m) : 0.f;
    }
    stddev_[c] = std::sqrt(variance[c] + problem_.eps);
    for (int64_t n = 0; n < num; ++n) {
      for (int64_t s = 0; s < spatial; ++s) {
        const int64_t k = At(n, c) + s;
        y[k] = (x[k] - mean[c]) / stddev_[c];
        normalized_[k] = y[k];
      }
    }
  }
}

void BatchNorm::Backward(const float*, const float*, const float*, const float*, const float* dy,
                         float* dx) {
  const int64_t num = problem_.num, spatial = problem_.spatial;
  const float* y = normalized_.data();
  const double m = static_cast<double>(num) * spatial;
  for (int64_t c = 0; c < problem_.channels; ++c) {
    double mean_dy = 0, mean_dy_y = 0;
    if (!problem_.global_stats && m > 0) {
      for (int64_t n = 0; n < num; ++n) {
        for (int64_t s = 0; s < spatial; ++s) {
          const int64_t k = At(n, c) + s;
          mean_dy += dy[k];
          mean_dy_y += static_cast<double>(dy[k]) * y[k];
        }
      }
      mean_dy /= m;
      mean_dy_y /= m;
    }
    // dx may be dy itself (in place): each element is read before it is written.
    for (int64_t n = 0; n < num; ++n) {
      for (int64_t s = 0; s < spatial; ++s) {
        const int64_t k = At(n, c) + s;
        dx[k] = static_cast<float>((dy[k] - mean_dy - mean_dy_y * y[k]) / stddev_[c]);
      }
    }
  }
}

}  // namespace dtrain::reference
