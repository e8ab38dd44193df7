#include "layers/bnll_layer.h"

#include <algorithm>
#include <cmath>

namespace dtrain {
namespace {

constexpr float kBnllThreshold = 50.f;  // Caffe's kBNLL_THRESHOLD

}  // namespace

void BNLLLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v > 0.f ? v + std::log(1.f + std::exp(-v)) : std::log(1.f + std::exp(v));
  }
}

void BNLLLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                 int64_t n) const {
  for (int64_t i = 0; i < n; ++i) {
    const float e = std::exp(std::min(x[i], kBnllThreshold));
    dx[i] = dy[i] * e / (e + 1.f);
  }
}

}  // namespace dtrain
