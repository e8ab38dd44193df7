#include "layers/swish_layer.h"

#include <cmath>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

float Sigmoid(float v) { return 0.5f * std::tanh(0.5f * v) + 0.5f; }

}  // namespace

void SwishLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  const float beta = param_.swish_param().beta();
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * Sigmoid(beta * x[i]);
}

void SwishLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                  int64_t n) const {
  const float beta = param_.swish_param().beta();
  for (int64_t i = 0; i < n; ++i) {
    const float s = Sigmoid(beta * x[i]);
    dx[i] = dy[i] * (beta * y[i] + s * (1.f - beta * y[i]));
  }
}

}  // namespace dtrain
