// oneDNN inner product (fully connected), an implementation of kernels/inner_product.h
// (plain row-major buffers: src m x k, weights n x k or k x n when transposed,
// dst m x n). Primitives are made once per problem, relaid data lives in the net's Scratch; weight
// and bias gradients accumulate (+=). Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/inner_product.h"
#include "kernels/onednn/common.h"
#include "kernels/onednn/weighted_passes.h"

namespace dtrain::onednn {

class InnerProduct : public WeightedKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::LinearKernel>> Create(
      const kernels::InnerProductProblem& problem, const kernels::KernelRequest& request);

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  InnerProduct() = default;
  Status Init(const kernels::InnerProductShape& shape, bool bias, bool training, Scratch* scratch);
};

}  // namespace dtrain::onednn
