#include "layers/exp_layer.h"

#include <cmath>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ExpLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const ExpParameter& p = param_.exp_param();
  const float base = p.base();
  if (base != -1.f && !(base > 0.f)) {
    return Error("exp_param.base must be -1 (e) or positive, not " + std::to_string(base));
  }
  const float log_base = base == -1.f ? 1.f : std::log(base);
  if (!std::isfinite(log_base)) return Error("exp_param.base gives a non-finite log(base)");
  inner_scale_ = log_base * p.scale();
  outer_scale_ = p.shift() == 0.f ? 1.f
                 : base == -1.f   ? std::exp(p.shift())
                                  : std::pow(base, p.shift());
  return Status::Ok();
}

void ExpLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) y[i] = outer_scale_ * std::exp(inner_scale_ * x[i]);
}

void ExpLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                int64_t n) const {
  for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] * inner_scale_ * y[i];
}

}  // namespace dtrain
