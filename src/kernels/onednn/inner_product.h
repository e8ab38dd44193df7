// oneDNN inner product (fully connected), the fast implementation of reference::InnerProduct*
// (same problem and plain row-major buffers: src m x k, weights n x k or k x n when transposed,
// dst m x n). Primitives are made once per problem, relaid data lives in the net's Scratch; weight and bias gradients
// accumulate (+=). Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/onednn/weighted_passes.h"
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
  std::string implementation_;
  WeightedPasses passes_;
};

}  // namespace dtrain::onednn
