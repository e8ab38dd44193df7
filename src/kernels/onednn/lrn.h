// oneDNN local response normalisation (an implementation of kernels/lrn.h, plain NCHW buffers):
// ACROSS_CHANNELS scale = k + alpha / n * sum over n channels, WITHIN_CHANNEL scale = k + alpha /
// n^2 * sum over an n x n square (Caffe's within-channel k is 1; the caller passes it), top =
// bottom * scale^-beta. Runs in channel blocks, relaid around the primitives in the net's
// Scratch; backward uses the
// workspace of the forward pass on the same data. Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/lrn.h"
#include "kernels/onednn/common.h"

namespace dtrain::onednn {

class Lrn : public kernels::UnaryKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::UnaryKernel>> Create(
      const kernels::LrnProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override { return implementation_; }

  void Forward(const float* src, float* dst) override;
  // Reads src (and the forward pass's workspace), not dst.
  void Backward(const float* src, const float* dst, const float* diff_dst,
                float* diff_src) override;

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  Lrn() = default;
  Status Init(const kernels::LrnShape& shape, bool across_channels, bool training,
              Scratch* scratch);

  CpuContext context_;
  ScratchRef scratch_{nullptr};
  std::string implementation_;
  dnnl::lrn_forward forward_;
  dnnl::lrn_backward backward_;
  Relayout src_, dst_, bwd_src_, diff_dst_, diff_src_;
  dnnl::memory workspace_;
  Args fwd_args_, bwd_args_;
};

}  // namespace dtrain::onednn
