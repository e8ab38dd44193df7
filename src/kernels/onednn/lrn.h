// oneDNN local response normalisation (reference::Lrn*, same plain NCHW buffers):
// ACROSS_CHANNELS scale = k + alpha / n * sum over n channels, WITHIN_CHANNEL scale = k + alpha /
// n^2 * sum over an n x n square (Caffe's within-channel k is 1; the caller passes it), top =
// bottom * scale^-beta. Runs in channel blocks, relaid around the primitives in the net's
// Scratch; backward uses the
// workspace of the forward pass on the same data. Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/reference/lrn.h"

namespace dtrain::onednn {

class Lrn {
 public:
  static StatusOr<std::unique_ptr<Lrn>> Create(const reference::LrnShape& shape,
                                               bool across_channels, bool training,
                                               Scratch* scratch);
  std::string implementation() const { return implementation_; }

  void Forward(const float* src, float* dst);
  void Backward(const float* src, const float* diff_dst, float* diff_src);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  Lrn() = default;
  Status Init(const reference::LrnShape& shape, bool across_channels, bool training,
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
