// oneDNN inner product (fully connected), the fast implementation of reference::InnerProduct*
// (same problem and plain row-major buffers: src m x k, weights n x k or k x n when transposed,
// dst m x n). Primitives are made once per problem, relaid data lives in the net's Scratch; weight and bias gradients
// accumulate (+=). Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/reference/inner_product.h"

namespace dtrain::onednn {

class InnerProduct {
 public:
  static StatusOr<std::unique_ptr<InnerProduct>> Create(const reference::InnerProductShape& shape,
                                                        bool bias, bool training,
                                                        Scratch* scratch);
  std::string implementation() const { return implementation_; }

  void Forward(const float* src, const float* weights, const float* bias, float* dst);
  // Any of diff_src, diff_weights, diff_bias may be null to skip it.
  void Backward(const float* src, const float* diff_dst, const float* weights, float* diff_src,
                float* diff_weights, float* diff_bias);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  InnerProduct() = default;
  Status Init(const reference::InnerProductShape& shape, bool bias, bool training,
              Scratch* scratch);

  CpuContext context_;
  ScratchRef scratch_{nullptr};
  bool bias_ = false;
  std::string implementation_;

  dnnl::inner_product_forward forward_;
  Relayout fwd_src_, fwd_weights_, fwd_dst_;
  dnnl::memory fwd_bias_;
  Args fwd_args_;

  dnnl::inner_product_backward_data backward_data_;
  Relayout bwd_data_diff_dst_, bwd_data_weights_, bwd_data_diff_src_;
  Args bwd_data_args_;

  dnnl::inner_product_backward_weights backward_weights_;
  Relayout bwd_weights_src_, bwd_weights_diff_dst_;
  Accumulator diff_weights_, diff_bias_;
  Args bwd_weights_args_;
};

}  // namespace dtrain::onednn
