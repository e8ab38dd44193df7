// Reference local response normalisation (kernels/lrn.h), Caffe's definition, on NCHW float32
// tensors: the functions, and Lrn, which runs them as the op's last implementation.
//
//   scale = k + alpha / n * sum over the window of src^2,   dst = src * scale^-beta
//
// Across channels the window is local_size channels centred on the channel (n = local_size);
// within a channel it is a local_size x local_size square centred on the pixel
// (n = local_size^2). Windows are zero-padded at the borders: the divisor n never shrinks.
// local_size must be odd. Forward writes dst and the `scale` workspace (same shape as src),
// which backward reads with src and dst; all buffers are the caller's. The functions are
// stateless; Lrn keeps the scale between its passes and is not thread-safe.
//
// Caffe's WITHIN_CHANNEL ignores `k` and uses 1; that choice belongs to the caller (the layer).
#pragma once

#include <memory>
#include <vector>

#include "kernels/lrn.h"

namespace dtrain::reference {

void LrnAcrossChannelsForward(const kernels::LrnShape& shape, const float* src, float* dst,
                              float* scale);
// diff_src (overwritten) from diff_dst, given the src, dst and scale of the forward pass.
void LrnAcrossChannelsBackward(const kernels::LrnShape& shape, const float* src, const float* dst,
                               const float* scale, const float* diff_dst, float* diff_src);

void LrnWithinChannelForward(const kernels::LrnShape& shape, const float* src, float* dst,
                             float* scale);
void LrnWithinChannelBackward(const kernels::LrnShape& shape, const float* src, const float* dst,
                              const float* scale, const float* diff_dst, float* diff_src);

// The op's reference kernel: takes every problem.
class Lrn : public kernels::UnaryKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::UnaryKernel>> Create(
      const kernels::LrnProblem& problem, const kernels::KernelRequest& request);

  void Forward(const float* src, float* dst) override;
  void Backward(const float* src, const float* dst, const float* diff_dst,
                float* diff_src) override;

 private:
  explicit Lrn(const kernels::LrnProblem& problem);

  kernels::LrnProblem problem_;
  std::vector<float> scale_;  // of the last forward pass
};

}  // namespace dtrain::reference
