// oneDNN softmax over the middle axis of a dense float32 (outer, channels, inner) buffer, an
// implementation of kernels/softmax.h. Backward takes dst (the probabilities). Not thread-safe.
#pragma once

#include <memory>

#include "kernels/onednn/common.h"
#include "kernels/onednn/unary_passes.h"
#include "kernels/softmax.h"

namespace dtrain::onednn {

class Softmax : public DstBackwardKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::UnaryKernel>> Create(
      const kernels::SoftmaxProblem& problem, const kernels::KernelRequest& request);

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  Softmax() = default;
  Status Init(const kernels::SoftmaxProblem& problem, bool training);
};

}  // namespace dtrain::onednn
