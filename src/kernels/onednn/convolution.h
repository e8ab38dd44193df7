// oneDNN 2-D convolution, the fast implementation of reference::Convolution* (same problem, same
// plain NCHW buffers, same results within float rounding).
//
// Primitives (forward; for training also backward-data and backward-weights) are created once
// per problem with oneDNN choosing the layouts it computes fastest in (blocked, e.g. nChw8c on
// AVX2); the kernel reorders inputs into them and results back, into buffers it allocated at
// the net's Scratch for the duration of one call, so a call allocates nothing. Weight and bias gradients accumulate (+=) like the
// reference's. Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/reference/convolution.h"

namespace dtrain::onednn {

class Convolution {
 public:
  // Declines (with the reason) a problem oneDNN cannot compute. `training` also prepares the
  // backward primitives.
  // `scratch`: the net's (null: the kernel's own).
  static StatusOr<std::unique_ptr<Convolution>> Create(const reference::ConvolutionShape& shape,
                                                       bool bias, bool training, Scratch* scratch);

  // oneDNN's names for the implementations it picked, e.g. "jit:avx2".
  std::string implementation() const { return implementation_; }

  // dst = conv(src, weights) + bias (bias ignored when the problem has none).
  void Forward(const float* src, const float* weights, const float* bias, float* dst);
  // diff_src = conv^T(diff_dst, weights); diff_weights += ..., diff_bias += ... Any of the three
  // outputs may be null to skip it.
  void Backward(const float* src, const float* diff_dst, const float* weights, float* diff_src,
                float* diff_weights, float* diff_bias);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  Convolution() = default;
  Status Init(const reference::ConvolutionShape& shape, bool bias, bool training,
              Scratch* scratch);

  CpuContext context_;
  ScratchRef scratch_{nullptr};
  bool bias_ = false, training_ = false;
  std::string implementation_;

  dnnl::convolution_forward forward_;
  Relayout fwd_src_, fwd_weights_, fwd_dst_;
  dnnl::memory fwd_bias_;
  Args fwd_args_;

  dnnl::convolution_backward_data backward_data_;
  Relayout bwd_data_diff_dst_, bwd_data_weights_, bwd_data_diff_src_;
  Args bwd_data_args_;

  dnnl::convolution_backward_weights backward_weights_;
  Relayout bwd_weights_src_, bwd_weights_diff_dst_;
  Accumulator diff_weights_, diff_bias_;
  Args bwd_weights_args_;
  bool shared_diff_dst_ = false;  // both backward passes want one diff_dst layout
};

}  // namespace dtrain::onednn
