// oneDNN ReLU (leaky with slope >= 0), an implementation of kernels/relu.h, over a dense float32
// buffer. Backward uses dst, not src, so that it also works in place (Caffe's usual
// `bottom == top` ReLU): dst > 0 exactly where src > 0 when slope >= 0. Works in place for both
// passes. Not thread-safe.
#pragma once

#include <memory>

#include "kernels/onednn/common.h"
#include "kernels/onednn/unary_passes.h"
#include "kernels/relu.h"

namespace dtrain::onednn {

class Relu : public DstBackwardKernel {
 public:
  // Declines a negative slope (dst no longer tells where src was positive).
  static StatusOr<std::unique_ptr<kernels::UnaryKernel>> Create(
      const kernels::ReluProblem& problem, const kernels::KernelRequest& request);

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  Relu() = default;
  Status Init(const kernels::ReluProblem& problem, bool training);
};

}  // namespace dtrain::onednn
