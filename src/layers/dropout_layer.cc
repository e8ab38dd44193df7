#include "layers/dropout_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status DropoutLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  ratio_ = param_.dropout_param().dropout_ratio();
  if (!(ratio_ >= 0.f && ratio_ < 1.f)) {
    return Error("dropout_ratio must be in [0, 1), got " + std::to_string(ratio_));
  }
  scale_ = 1.f / (1.f - ratio_);
  return Status::Ok();
}

Status DropoutLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->ReshapeLike(*bottom[0]);
  mask_.resize(bottom[0]->count());
  return Status::Ok();
}

Status DropoutLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  const int64_t n = bottom[0]->count();
  if (phase_ != TRAIN) {
    if (x != y) std::copy(x, x + n, y);
    return Status::Ok();
  }
  for (int64_t i = 0; i < n; ++i) {
    mask_[i] = rng_.Bernoulli(1.f - ratio_) ? 1 : 0;
    y[i] = mask_[i] ? x[i] * scale_ : 0.f;
  }
  return Status::Ok();
}

void DropoutLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  const int64_t n = top[0]->count();
  if (phase_ != TRAIN) {
    if (dx != dy) std::copy(dy, dy + n, dx);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dx[i] = mask_[i] ? dy[i] * scale_ : 0.f;
}

}  // namespace dtrain
