#include "layers/sigmoid_cross_entropy_loss_layer.h"

#include <cmath>

#include "layers/loss_normalization.h"
#include "proto/net.pb.h"

namespace dtrain {

Status SigmoidCrossEntropyLossLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const LossParameter& p = param_.loss_param();
  has_ignore_label_ = p.has_ignore_label();
  ignore_label_ = p.ignore_label();
  if (p.has_normalization()) {
    normalization_ = p.normalization();
  } else if (p.has_normalize()) {
    normalization_ = p.normalize() ? LossParameter::VALID : LossParameter::BATCH_SIZE;
  } else {
    normalization_ = LossParameter::BATCH_SIZE;
  }
  return Status::Ok();
}

Status SigmoidCrossEntropyLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  const Tensor& t = *bottom[1];
  if (x.num_axes() == 0 || t.num_axes() == 0 || x.shape(0) != t.shape(0) ||
      x.count() != t.count()) {
    return Error("scores and targets must have the same first dimension and count: scores " +
                 x.ShapeString() + ", targets " + t.ShapeString());
  }
  sigmoid_.ReshapeLike(x);
  top[0]->Reshape({});
  return Status::Ok();
}

Status SigmoidCrossEntropyLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* x = bottom[0]->data();
  const float* t = bottom[1]->data();
  float* s = sigmoid_.mutable_data();
  double loss = 0;
  int64_t valid = 0;
  for (int64_t k = 0; k < bottom[0]->count(); ++k) {
    // exp(-|x|) never overflows: sigmoid(x) = 1 / (1 + e) for x >= 0, e / (1 + e) below.
    const float e = std::exp(-std::fabs(x[k]));
    s[k] = x[k] >= 0 ? 1.f / (1.f + e) : e / (1.f + e);
    if (Ignored(t[k])) continue;
    const float positive = x[k] >= 0 ? 1.f : 0.f;
    loss -= x[k] * (t[k] - positive) - std::log1p(e);
    ++valid;
  }
  const int64_t outer = bottom[0]->shape(0);
  normalizer_ = LossNormalizer(normalization_, outer, bottom[0]->count(1), valid);
  top[0]->mutable_data()[0] = static_cast<float>(loss / normalizer_);
  return Status::Ok();
}

void SigmoidCrossEntropyLossLayer::BackwardImpl(const TensorVec& top,
                                                const std::vector<bool>& propagate_down,
                                                const TensorVec& bottom) {
  // Targets get no gradient (AllowForceBackward(1) is false); propagate_down[1] is ignored.
  if (!propagate_down[0]) return;
  const float* s = sigmoid_.data();
  const float* t = bottom[1]->data();
  float* dx = bottom[0]->mutable_diff();
  const float scale = top[0]->diff()[0] / normalizer_;
  for (int64_t k = 0; k < bottom[0]->count(); ++k) {
    dx[k] = Ignored(t[k]) ? 0.f : (s[k] - t[k]) * scale;
  }
}

}  // namespace dtrain
