// Reference batch normalisation (kernels/batch_norm.h), with the fused scale, shift and ReLU and
// with ghost batch statistics (groups > 1): plain loops, accumulating in double, the op's last
// implementation. Forward keeps xhat, the
// per-channel standard deviations and the scale and shift it used (for the ReLU's mask) for
// backward, so both passes may run in place. Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "kernels/batch_norm.h"

namespace dtrain::reference {

class BatchNorm : public kernels::BatchNormKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::BatchNormKernel>> Create(
      const kernels::BatchNormProblem& problem, const kernels::KernelRequest& request);

  void Forward(const float* src, float* dst, float* mean, float* variance, const float* scale,
               const float* shift) override;
  void Backward(const float* src, const float* dst, const float* mean, const float* variance,
                const float* scale, const float* diff_dst, float* diff_src, float* diff_scale,
                float* diff_shift) override;

 private:
  explicit BatchNorm(const kernels::BatchNormProblem& problem);
  int64_t At(int64_t n, int64_t c) const { return (n * problem_.channels + c) * problem_.spatial; }

  kernels::BatchNormProblem problem_;
  std::vector<float> normalized_;     // xhat of the last forward
  std::vector<float> stddev_;         // per group and channel, from the last forward
  std::vector<float> scale_, shift_;  // of the last forward (1 and 0 without scale_shift)
};

}  // namespace dtrain::reference
