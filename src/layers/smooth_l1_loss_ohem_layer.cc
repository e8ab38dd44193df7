#include "layers/smooth_l1_loss_ohem_layer.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <string>

#include "layers/legacy_shape.h"
#include "layers/loss_normalization.h"
#include "layers/smooth_l1.h"
#include "proto/detection_params.pb.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// A value for a message, as a stream prints it ("3", "0.5", "nan").
std::string Number(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

Status SmoothL1LossOHEMLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  weighted_ = bottom.size() == 3;
  const float sigma = param_.smooth_l1_loss_param().sigma();
  if (param_.smooth_l1_loss_param().has_sigma() && sigma != 1.f) {
    return Error("smooth_l1_loss_param.sigma is " + Number(sigma) +
                 ", but SmoothL1LossOHEM computes with sigma 1 (Intel Caffe's reads no sigma); "
                 "remove it");
  }
  if (param_.loss_weight_size() > 1 && param_.loss_weight(1) != 0.f) {
    return Error("loss_weight of the per-ROI loss (top 1) must be 0, got " +
                 Number(param_.loss_weight(1)) +
                 ": it gets no gradient (Intel Caffe's backward ignores it)");
  }
  const LossParameter& p = param_.loss_param();
  if (!p.has_normalization() && p.has_normalize()) {
    normalization_ = p.normalize() ? LossParameter::VALID : LossParameter::BATCH_SIZE;
  } else {
    normalization_ = p.normalization();
  }
  return Status::Ok();
}

Status SmoothL1LossOHEMLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const std::string problem = SmoothL1BottomsProblem(bottom);
  if (!problem.empty()) return Error(problem);
  const std::array<int, 4> dims = LegacyShape(*bottom[0]);
  outer_ = dims[0];
  channels_ = dims[1];
  inner_ = static_cast<int64_t>(dims[2]) * dims[3];
  difference_.ReshapeLike(*bottom[0]);
  top[0]->Reshape({});
  if (top.size() > 1) top[1]->Reshape({dims[0], 1, dims[2], dims[3]});
  return Status::Ok();
}

float SmoothL1LossOHEMLayer::Normalizer() const {
  // No location is ignored, so VALID counts every one, as FULL.
  return LossNormalizer(static_cast<LossParameter::NormalizationMode>(normalization_), outer_,
                        inner_, outer_ * inner_, param_.loss_param().pre_fixed_normalizer());
}

Status SmoothL1LossOHEMLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* p = bottom[0]->data();
  const float* t = bottom[1]->data();
  const float* w = weighted_ ? bottom[2]->data() : nullptr;
  float* d = difference_.mutable_data();
  float* per_roi = top.size() > 1 ? top[1]->mutable_data() : nullptr;
  if (per_roi != nullptr) std::fill(per_roi, per_roi + outer_ * inner_, 0.f);
  double sum = 0;
  for (int64_t n = 0; n < outer_; ++n) {
    for (int64_t c = 0; c < channels_; ++c) {
      for (int64_t s = 0; s < inner_; ++s) {
        const int64_t i = (n * channels_ + c) * inner_ + s;
        d[i] = p[i] - t[i];
        if (weighted_) d[i] *= w[i];
        const float error = SmoothL1(d[i], 1.f);
        sum += error;
        if (per_roi != nullptr) per_roi[n * inner_ + s] += error;
      }
    }
  }
  top[0]->mutable_data()[0] = static_cast<float>(sum / Normalizer());
  return Status::Ok();
}

void SmoothL1LossOHEMLayer::BackwardImpl(const TensorVec& top,
                                         const std::vector<bool>& propagate_down,
                                         const TensorVec& bottom) {
  // The per-ROI top's diff is not read (its loss weight is 0); the weights get 0.
  ZeroBottomDiffsFrom(2, propagate_down, bottom);
  const int64_t count = difference_.count();
  const float* d = difference_.data();
  const float* w = weighted_ ? bottom[2]->data() : nullptr;
  for (int k = 0; k < 2; ++k) {
    if (!propagate_down[k]) continue;
    const float alpha = (k == 0 ? 1.f : -1.f) * top[0]->diff()[0] / Normalizer();
    float* dx = bottom[k]->mutable_diff();
    for (int64_t i = 0; i < count; ++i) {
      dx[i] = alpha * SmoothL1Slope(d[i], 1.f);
      if (weighted_) dx[i] *= w[i];
    }
  }
}

}  // namespace dtrain
