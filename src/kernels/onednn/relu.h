// oneDNN ReLU (leaky with slope >= 0) over a dense float32 buffer of `count` values:
// dst = max(src, 0) + slope * min(src, 0). Backward uses dst, not src, so that it also works in
// place (Caffe's usual `bottom == top` ReLU): dst > 0 exactly where src > 0 when slope >= 0.
// Works in place for both passes. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/onednn/common.h"
#include "kernels/onednn/unary_passes.h"

namespace dtrain::onednn {

struct ReluProblem {
  int64_t count = 0;
  float negative_slope = 0.f;
  bool operator==(const ReluProblem& o) const {
    return count == o.count && negative_slope == o.negative_slope;
  }
};

class Relu : public UnaryKernel {
 public:
  // Declines a negative slope (dst no longer tells where src was positive).
  static StatusOr<std::unique_ptr<Relu>> Create(const ReluProblem& problem, bool training);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  Relu() = default;
  Status Init(const ReluProblem& problem, bool training);
};

}  // namespace dtrain::onednn
