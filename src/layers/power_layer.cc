#include "layers/power_layer.h"

#include <cmath>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status PowerLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  power_ = param_.power_param().power();
  scale_ = param_.power_param().scale();
  shift_ = param_.power_param().shift();
  diff_scale_ = power_ * scale_;
  return Status::Ok();
}

void PowerLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  if (diff_scale_ == 0.f) {
    const float value = power_ == 0.f ? 1.f : std::pow(shift_, power_);
    for (int64_t i = 0; i < n; ++i) y[i] = value;
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const float u = scale_ * x[i] + shift_;
    y[i] = power_ == 1.f ? u : std::pow(u, power_);
  }
}

void PowerLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                  int64_t n) const {
  for (int64_t i = 0; i < n; ++i) {
    float grad;  // dy/dx
    if (diff_scale_ == 0.f) {
      grad = 0.f;
    } else if (power_ == 1.f) {
      grad = diff_scale_;
    } else {
      const float u = scale_ * x[i] + shift_;
      if (power_ == 2.f) {
        grad = diff_scale_ * u;
      } else if (u != 0.f) {
        grad = diff_scale_ * y[i] / u;
      } else {
        grad = diff_scale_ * std::pow(0.f, power_ - 1.f);
      }
    }
    dx[i] = dy[i] * grad;
  }
}

}  // namespace dtrain
