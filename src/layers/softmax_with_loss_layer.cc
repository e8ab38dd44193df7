#include "layers/softmax_with_loss_layer.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <sstream>
#include <string>

#include "layers/loss_normalization.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status SoftmaxWithLossLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  LayerParameter softmax_param(param_);
  softmax_param.set_type("Softmax");
  softmax_param.clear_loss_weight();
  softmax_ = std::make_unique<SoftmaxLayer>(softmax_param,
                                            LayerContext{phase_, 0, engine_name(), scratch_});
  softmax_top_ = {&prob_};
  DT_RETURN_IF_ERROR(softmax_->Setup({bottom[0]}, softmax_top_));

  const LossParameter& p = param_.loss_param();
  has_ignore_label_ = p.has_ignore_label();
  ignore_label_ = p.ignore_label();
  if (!p.has_normalization() && p.has_normalize()) {
    normalization_ = p.normalize() ? LossParameter::VALID : LossParameter::BATCH_SIZE;
  } else {
    normalization_ = p.normalization();
  }
  return Status::Ok();
}

Status SoftmaxWithLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (bottom[0]->num_axes() == 0 || bottom[1]->num_axes() == 0 ||
      bottom[0]->shape(0) != bottom[1]->shape(0)) {
    return Error("scores and labels must have the same first dimension: scores " +
                 bottom[0]->ShapeString() + ", labels " + bottom[1]->ShapeString());
  }
  DT_RETURN_IF_ERROR(softmax_->Reshape({bottom[0]}, {&prob_}));
  const int axis = bottom[0]->CanonicalAxisIndex(param_.softmax_param().axis());
  outer_ = bottom[0]->count(0, axis);
  channels_ = bottom[0]->shape(axis);
  inner_ = bottom[0]->count(axis + 1);
  if (outer_ * inner_ != bottom[1]->count()) {
    return Error("needs one label per prediction: scores " + bottom[0]->ShapeString() +
                 " with softmax axis " + std::to_string(axis) + " need " +
                 std::to_string(outer_ * inner_) + " labels, got " + bottom[1]->ShapeString());
  }
  top[0]->Reshape({});
  if (top.size() > 1) top[1]->ReshapeLike(*bottom[0]);
  return Status::Ok();
}

float SoftmaxWithLossLayer::Normalizer(int64_t valid_count) const {
  return LossNormalizer(static_cast<LossParameter::NormalizationMode>(normalization_), outer_,
                        inner_, valid_count, param_.loss_param().pre_fixed_normalizer());
}

Status SoftmaxWithLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  return ForwardLoss(bottom, top, nullptr);
}

Status SoftmaxWithLossLayer::ForwardLoss(const TensorVec& bottom, const TensorVec& top,
                                         float* per_location) {
  softmax_bottom_.assign(1, bottom[0]);
  DT_RETURN_IF_ERROR(softmax_->Forward(softmax_bottom_, softmax_top_, nullptr));
  const float* p = prob_.data();
  const float* label = bottom[1]->data();
  double loss = 0;
  int64_t valid = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t i = 0; i < inner_; ++i) {
      const float value = label[o * inner_ + i];
      // Caffe's int conversion, where it is defined (NaN and values beyond an int are not).
      if (!(value > -2147483648.f && value < 2147483648.f)) {
        std::ostringstream shown;
        shown << value;
        return Error("label " + shown.str() + " at position " + std::to_string(o * inner_ + i) +
                     " is outside [0, " + std::to_string(channels_) + ")");
      }
      const int l = static_cast<int>(value);
      if (Ignored(l)) {
        if (per_location != nullptr) per_location[o * inner_ + i] = 0.f;
        continue;
      }
      if (l < 0 || l >= channels_) {
        return Error("label " + std::to_string(l) + " at position " +
                     std::to_string(o * inner_ + i) + " is outside [0, " +
                     std::to_string(channels_) + ")");
      }
      const float location_loss = -std::log(std::max(p[(o * channels_ + l) * inner_ + i], FLT_MIN));
      if (per_location != nullptr) per_location[o * inner_ + i] = location_loss;
      loss += location_loss;
      ++valid;
    }
  }
  top[0]->mutable_data()[0] = static_cast<float>(loss / Normalizer(valid));
  if (top.size() > 1) top[1]->ShareData(prob_);
  return Status::Ok();
}

void SoftmaxWithLossLayer::BackwardImpl(const TensorVec& top,
                                        const std::vector<bool>& propagate_down,
                                        const TensorVec& bottom) {
  // Labels get no gradient (AllowForceBackward(1) is false); propagate_down[1]
  // is ignored.
  if (!propagate_down[0]) return;
  const float* p = prob_.data();
  const float* label = bottom[1]->data();
  float* dx = bottom[0]->mutable_diff();
  std::copy(p, p + prob_.count(), dx);
  int64_t valid = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t i = 0; i < inner_; ++i) {
      const int l = static_cast<int>(label[o * inner_ + i]);
      if (Ignored(l)) {
        for (int c = 0; c < channels_; ++c) dx[(o * channels_ + c) * inner_ + i] = 0.f;
      } else {
        dx[(o * channels_ + l) * inner_ + i] -= 1.f;
        ++valid;
      }
    }
  }
  const float scale = top[0]->diff()[0] / Normalizer(valid);
  for (int64_t k = 0; k < prob_.count(); ++k) dx[k] *= scale;
}

}  // namespace dtrain
