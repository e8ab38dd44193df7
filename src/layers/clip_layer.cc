#include "layers/clip_layer.h"

#include <algorithm>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ClipLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const ClipParameter& p = param_.clip_param();
  if (!p.has_min() || !p.has_max()) return Error("clip_param { min: ... max: ... } is required");
  if (p.min() > p.max()) {
    return Error("clip_param.min (" + std::to_string(p.min()) + ") is greater than max (" +
                 std::to_string(p.max()) + ")");
  }
  min_ = p.min();
  max_ = p.max();
  return Status::Ok();
}

void ClipLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) y[i] = std::max(min_, std::min(x[i], max_));
}

void ClipLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                 int64_t n) const {
  for (int64_t i = 0; i < n; ++i) dx[i] = (x[i] >= min_ && x[i] <= max_) ? dy[i] : 0.f;
}

}  // namespace dtrain
