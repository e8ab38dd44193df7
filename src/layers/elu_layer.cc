#include "layers/elu_layer.h"

#include <cmath>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

void ELULayer::ForwardElements(const float* x, float* y, int64_t n) const {
  const float alpha = param_.elu_param().alpha();
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v > 0.f ? v : alpha * (std::exp(v) - 1.f);
  }
}

void ELULayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                int64_t n) const {
  const float alpha = param_.elu_param().alpha();
  for (int64_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : dy[i] * (y[i] + alpha);
}

}  // namespace dtrain
