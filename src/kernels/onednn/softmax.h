// oneDNN softmax over the middle axis of a dense float32 (outer, channels, inner) buffer, as
// Caffe's Softmax over `axis`. Backward takes dst (the probabilities). Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/onednn/unary_passes.h"

namespace dtrain::onednn {

struct SoftmaxProblem {
  int64_t outer = 1, channels = 1, inner = 1;
  bool operator==(const SoftmaxProblem& o) const {
    return outer == o.outer && channels == o.channels && inner == o.inner;
  }
};

class Softmax : public UnaryKernel {
 public:
  static StatusOr<std::unique_ptr<Softmax>> Create(const SoftmaxProblem& problem, bool training);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  Softmax() = default;
  Status Init(const SoftmaxProblem& problem, bool training);
};

}  // namespace dtrain::onednn
