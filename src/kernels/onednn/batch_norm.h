// oneDNN batch normalisation, an implementation of kernels/batch_norm.h on a dense (num,
// channels, spatial) float32 buffer, with oneDNN's own scale and shift (use_scale, use_shift)
// and ReLU (fuse_norm_relu, whose mask it keeps in a workspace) when the problem fuses them.
// With batch statistics (training) the forward pass writes the batch's mean and biased variance;
// with global statistics it reads them.
//
// With 8 or more channels it computes in the channel-blocked layout (BlockedDesc4d), where
// oneDNN's vectorised kernels run several times faster than on plain NCHW: layouts() names it, and
// the caller passes every tensor in it. Backward reads the forward's src (kernels/batch_norm.h: the
// caller keeps it). Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/batch_norm.h"
#include "kernels/onednn/common.h"

namespace dtrain::onednn {

class BatchNorm : public kernels::BatchNormKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::BatchNormKernel>> Create(
      const kernels::BatchNormProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override { return implementation_; }
  kernels::KernelLayouts layouts() const override { return layouts_; }

  void Forward(const float* src, float* dst, float* mean, float* variance, const float* scale,
               const float* shift) override;
  void Backward(const float* src, const float* dst, const float* mean, const float* variance,
                const float* scale, const float* diff_dst, float* diff_src, float* diff_scale,
                float* diff_shift) override;

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  BatchNorm() = default;
  Status Init(const kernels::BatchNormProblem& problem, bool training);

  CpuContext context_;
  std::string implementation_;
  kernels::KernelLayouts layouts_;
  dnnl::batch_normalization_forward forward_;
  dnnl::batch_normalization_backward backward_;
  dnnl::memory src_, dst_, diff_dst_, diff_src_;  // bound to the caller's buffers per call
  dnnl::memory mean_, variance_, scale_, shift_, diff_scale_, diff_shift_;
  dnnl::memory workspace_;  // the ReLU's mask, with relu in training
  Args fwd_args_, bwd_args_;
};

}  // namespace dtrain::onednn
