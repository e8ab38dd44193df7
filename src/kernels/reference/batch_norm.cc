#include "kernels/reference/batch_norm.h"

#include <algorithm>
#include <cmath>

namespace dtrain::reference {

StatusOr<std::unique_ptr<kernels::BatchNormKernel>> BatchNorm::Create(
    const kernels::BatchNormProblem& problem, const kernels::KernelRequest&) {
  if (problem.groups < 1 || problem.num % problem.groups != 0) {
    return InvalidArgument("statistics groups must divide the batch");
  }
  return std::unique_ptr<kernels::BatchNormKernel>(new BatchNorm(problem));
}

BatchNorm::BatchNorm(const kernels::BatchNormProblem& problem)
    : problem_(problem),
      normalized_(static_cast<size_t>(problem.num * problem.channels * problem.spatial)),
      stddev_(static_cast<size_t>(problem.groups * problem.channels)),
      scale_(static_cast<size_t>(problem.channels), 1.f),
      shift_(static_cast<size_t>(problem.channels), 0.f) {}

void BatchNorm::Forward(const float* x, float* y, float* mean, float* variance, const float* scale,
                        const float* shift) {
  const int64_t per_group = problem_.num / problem_.groups, spatial = problem_.spatial;
  const double m = static_cast<double>(per_group) * spatial;  // elements per channel and group
  if (problem_.scale_shift) {
    std::copy(scale, scale + problem_.channels, scale_.begin());
    std::copy(shift, shift + problem_.channels, shift_.begin());
  }
  for (int64_t g = 0; g < problem_.groups; ++g) {
    const int64_t first = g * per_group, end = first + per_group;
    for (int64_t c = 0; c < problem_.channels; ++c) {
      const int64_t gc = g * problem_.channels + c;
      if (!problem_.global_stats) {
        double sum = 0, sum_sq = 0;
        for (int64_t n = first; n < end; ++n) {
          for (int64_t s = 0; s < spatial; ++s) sum += x[At(n, c) + s];
        }
        const double batch_mean = m > 0 ? sum / m : 0;
        for (int64_t n = first; n < end; ++n) {
          for (int64_t s = 0; s < spatial; ++s) {
            const double d = x[At(n, c) + s] - batch_mean;
            sum_sq += d * d;
          }
        }
        mean[gc] = static_cast<float>(batch_mean);
        variance[gc] = m > 0 ? static_cast<float>(sum_sq / m) : 0.f;
      }
      stddev_[gc] = std::sqrt(variance[gc] + problem_.eps);
      for (int64_t n = first; n < end; ++n) {
        for (int64_t s = 0; s < spatial; ++s) {
          const int64_t k = At(n, c) + s;
          normalized_[k] = (x[k] - mean[gc]) / stddev_[gc];
          float out = normalized_[k];
          if (problem_.scale_shift) out = scale_[c] * out + shift_[c];
          if (problem_.relu) out = std::max(out, 0.f);
          y[k] = out;
        }
      }
    }
  }
}

void BatchNorm::Backward(const float*, const float*, const float*, const float*, const float*,
                         const float* dy, float* dx, float* diff_scale, float* diff_shift) {
  const int64_t per_group = problem_.num / problem_.groups, spatial = problem_.spatial;
  const float* xhat = normalized_.data();
  const double m = static_cast<double>(per_group) * spatial;
  if (problem_.scale_shift) {
    std::fill(diff_scale, diff_scale + problem_.channels, 0.f);
    std::fill(diff_shift, diff_shift + problem_.channels, 0.f);
  }
  for (int64_t g = 0; g < problem_.groups; ++g) {
    const int64_t first = g * per_group, end = first + per_group;
    for (int64_t c = 0; c < problem_.channels; ++c) {
      const float stddev = stddev_[g * problem_.channels + c];
      // The diff arriving at the scale and shift: dy, masked where the fused ReLU cut.
      auto diff_out = [&](int64_t k) {
        return problem_.relu && scale_[c] * xhat[k] + shift_[c] <= 0.f ? 0.f : dy[k];
      };
      double sum_d = 0, sum_d_xhat = 0;
      for (int64_t n = first; n < end; ++n) {
        for (int64_t s = 0; s < spatial; ++s) {
          const int64_t k = At(n, c) + s;
          sum_d += diff_out(k);
          sum_d_xhat += static_cast<double>(diff_out(k)) * xhat[k];
        }
      }
      if (problem_.scale_shift) {  // the sum over every group
        diff_scale[c] += static_cast<float>(sum_d_xhat);
        diff_shift[c] += static_cast<float>(sum_d);
      }
      // The statistics of diff_xhat = scale * diff_out, per element of the channel's group.
      double mean_dxhat = 0, mean_dxhat_xhat = 0;
      if (!problem_.global_stats && m > 0) {
        mean_dxhat = scale_[c] * sum_d / m;
        mean_dxhat_xhat = scale_[c] * sum_d_xhat / m;
      }
      // dx may be dy itself (in place): each element is read before it is written.
      for (int64_t n = first; n < end; ++n) {
        for (int64_t s = 0; s < spatial; ++s) {
          const int64_t k = At(n, c) + s;
          const double dxhat = static_cast<double>(scale_[c]) * diff_out(k);
          dx[k] = static_cast<float>((dxhat - mean_dxhat - mean_dxhat_xhat * xhat[k]) / stddev);
        }
      }
    }
  }
}

}  // namespace dtrain::reference
