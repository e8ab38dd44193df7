#include "layers/absval_layer.h"

#include <cmath>

namespace dtrain {

void AbsValLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) y[i] = std::fabs(x[i]);
}

void AbsValLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                   int64_t n) const {
  for (int64_t i = 0; i < n; ++i) {
    const float sign = static_cast<float>((x[i] > 0.f) - (x[i] < 0.f));
    dx[i] = sign * dy[i];
  }
}

}  // namespace dtrain
