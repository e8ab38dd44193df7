// Reference batch normalisation (kernels/batch_norm.h): plain loops, accumulating in double, the
// op's last implementation. Forward keeps its output and the per-channel standard deviations for
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

  void Forward(const float* src, float* dst, float* mean, float* variance) override;
  void Backward(const float* src, const float* dst, const float* mean, const float* variance,
                const float* diff_dst, float* diff_src) override;

 private:
  explicit BatchNorm(const kernels::BatchNormProblem& problem);
  int64_t At(int64_t n, int64_t c) const { return (n * problem_.channels + c) * problem_.spatial; }

  kernels::BatchNormProblem problem_;
  std::vector<float> normalized_;  // the last forward's dst
  std::vector<float> stddev_;      // per channel, from the last forward
};

}  // namespace dtrain::reference
