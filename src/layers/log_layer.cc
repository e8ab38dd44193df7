#include "layers/log_layer.h"

#include <cmath>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status LogLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const LogParameter& p = param_.log_param();
  const float base = p.base();
  if (base != -1.f && !(base > 0.f)) {
    return Error("log_param.base must be -1 (e) or positive, not " + std::to_string(base));
  }
  const float log_base = base == -1.f ? 1.f : std::log(base);
  base_scale_ = 1.f / log_base;
  if (!std::isfinite(log_base) || !std::isfinite(base_scale_)) {
    return Error("log_param.base " + std::to_string(base) + " gives no finite 1 / log(base)");
  }
  input_scale_ = p.scale();
  input_shift_ = p.shift();
  backward_scale_ = input_scale_ / log_base;
  return Status::Ok();
}

void LogLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) y[i] = base_scale_ * std::log(input_scale_ * x[i] + input_shift_);
}

void LogLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                int64_t n) const {
  for (int64_t i = 0; i < n; ++i)
    dx[i] = dy[i] * backward_scale_ / (input_scale_ * x[i] + input_shift_);
}

}  // namespace dtrain
