// oneDNN 2-D max and average pooling with Caffe's window semantics (an implementation of
// kernels/pooling.h, plain NCHW buffers). Caffe's ceil rounding becomes extra right/bottom
// padding. Average pooling is taken only where oneDNN's divisor equals Caffe's (no padding: windows
// clipped to the image; padding that no window overhangs: the full kernel); otherwise Create
// declines. Max backward routes each gradient to the argmax kept in a workspace filled by the
// forward pass. Data is relaid into channel blocks around the primitives, in the net's Scratch. Not
// thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/pooling.h"

namespace dtrain::onednn {

class Pooling : public kernels::PoolingKernel {
 public:
  // Declines unless the ONEDNN engine is asked for (on plain NCHW tensors it is slower than the
  // reference: docs/engines.md), and declines STOCHASTIC, the argmax top and the AVE windows
  // above.
  static StatusOr<std::unique_ptr<kernels::PoolingKernel>> Create(
      const kernels::PoolingProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override { return implementation_; }
  kernels::KernelLayouts layouts() const override { return layouts_; }

  void Forward(const float* src, const float* uniforms, float* dst, float* argmax) override;
  // Needs the forward pass of the same data just before (the argmax workspace).
  void Backward(const float* src, const float* diff_dst, float* diff_src) override;

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  Pooling() = default;
  Status Init(const kernels::PoolingShape& shape, bool max, bool training, Scratch* scratch);

  CpuContext context_;
  ScratchRef scratch_{nullptr};
  std::string implementation_;
  kernels::KernelLayouts layouts_;
  dnnl::pooling_forward forward_;
  dnnl::pooling_backward backward_;
  Relayout src_, dst_, diff_dst_, diff_src_;
  dnnl::memory workspace_;
  Args fwd_args_, bwd_args_;
};

}  // namespace dtrain::onednn
