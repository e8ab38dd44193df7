// oneDNN inner product (fully connected), the fast implementation of reference::InnerProduct*
// (same problem and plain row-major buffers: src m x k, weights n x k or k x n when transposed,
// dst m x n). Primitives are made once per problem, relaid data lives in the net's Scratch; weight
// and bias gradients accumulate (+=). Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/onednn/weighted_passes.h"
#include "kernels/reference/inner_product.h"

namespace dtrain::onednn {

class InnerProduct : public WeightedKernel {
 public:
  static StatusOr<std::unique_ptr<InnerProduct>> Create(const reference::InnerProductShape& shape,
                                                        bool bias, bool training, Scratch* scratch);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  InnerProduct() = default;
  Status Init(const reference::InnerProductShape& shape, bool bias, bool training,
              Scratch* scratch);
};

}  // namespace dtrain::onednn
