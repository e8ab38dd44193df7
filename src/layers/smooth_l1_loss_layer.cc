#include "layers/smooth_l1_loss_layer.h"

#include <cmath>
#include <string>

#include "layers/smooth_l1.h"
#include "proto/detection_params.pb.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status SmoothL1LossLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  if (bottom.size() == 3) {
    return Error(
        "takes 2 bottoms (prediction, target) or 4 (with bbox_inside_weights and "
        "bbox_outside_weights), got 3");
  }
  weighted_ = bottom.size() == 4;
  const float sigma = param_.smooth_l1_loss_param().sigma();
  if (!std::isfinite(sigma) || sigma == 0.f) {
    return Error("smooth_l1_loss_param.sigma must be finite and not 0, got " +
                 std::to_string(sigma));
  }
  sigma2_ = sigma * sigma;
  normalize_ = param_.loss_param().normalization() != LossParameter::NONE;
  return Status::Ok();
}

Status SmoothL1LossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const std::string problem = SmoothL1BottomsProblem(bottom);
  if (!problem.empty()) return Error(problem);
  difference_.ReshapeLike(*bottom[0]);
  top[0]->Reshape({});
  return Status::Ok();
}

float SmoothL1LossLayer::Normalizer(const TensorVec& bottom) const {
  return normalize_ ? static_cast<float>(bottom[0]->shape(0)) : 1.f;
}

Status SmoothL1LossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int64_t count = difference_.count();
  const float* p = bottom[0]->data();
  const float* t = bottom[1]->data();
  const float* w_in = weighted_ ? bottom[2]->data() : nullptr;
  const float* w_out = weighted_ ? bottom[3]->data() : nullptr;
  float* d = difference_.mutable_data();
  double sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    d[i] = p[i] - t[i];
    if (weighted_) d[i] *= w_in[i];
    float error = SmoothL1(d[i], sigma2_);
    if (weighted_) error *= w_out[i];
    sum += error;
  }
  const float normalizer = Normalizer(bottom);
  top[0]->mutable_data()[0] = normalizer == 0.f ? 0.f : static_cast<float>(sum / normalizer);
  return Status::Ok();
}

void SmoothL1LossLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                     const TensorVec& bottom) {
  ZeroBottomDiffsFrom(2, propagate_down, bottom);  // the weights
  const float normalizer = Normalizer(bottom);
  if (normalizer == 0.f) return;
  const int64_t count = difference_.count();
  const float* d = difference_.data();
  const float* w_in = weighted_ ? bottom[2]->data() : nullptr;
  const float* w_out = weighted_ ? bottom[3]->data() : nullptr;
  for (int k = 0; k < 2; ++k) {
    if (!propagate_down[k]) continue;
    const float alpha = (k == 0 ? 1.f : -1.f) * top[0]->diff()[0] / normalizer;
    float* dx = bottom[k]->mutable_diff();
    for (int64_t i = 0; i < count; ++i) {
      dx[i] = alpha * SmoothL1Slope(d[i], sigma2_);
      if (weighted_) dx[i] = dx[i] * w_in[i] * w_out[i];
    }
  }
}

}  // namespace dtrain
