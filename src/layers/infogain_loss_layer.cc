#include "layers/infogain_loss_layer.h"

#include <algorithm>
#include <cmath>

#include "core/proto_io.h"
#include "layers/loss_normalization.h"
#include "proto/blob.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

constexpr float kLogThreshold = 1e-20f;  // Caffe's kLOG_THRESHOLD

void SumRows(const Tensor& h, int channels, std::vector<float>* sums) {
  sums->assign(channels, 0.f);
  const float* m = h.data();
  for (int r = 0; r < channels; ++r) {
    for (int c = 0; c < channels; ++c) (*sums)[r] += m[r * channels + c];
  }
}

}  // namespace

Status InfogainLossLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const LossParameter& lp = param_.loss_param();
  if (lp.has_normalize()) {
    return Error(
        "loss_param.normalize is deprecated and not read by InfogainLoss (as in Caffe); "
        "use loss_param.normalization");
  }
  has_ignore_label_ = lp.has_ignore_label();
  ignore_label_ = lp.ignore_label();
  normalization_ = lp.normalization();

  const InfogainLossParameter& ip = param_.infogain_loss_param();
  if (bottom.size() < 3) {
    if (!ip.has_source() || ip.source().empty()) {
      return Error(
          "infogain_loss_param.source must name the H matrix file (a BlobProto) when "
          "H is not given as a third bottom");
    }
    BlobProto proto;
    Status s = ReadBinaryProto(ip.source(), &proto);
    if (s.ok()) s = file_h_.FromProto(proto, /*reshape=*/true);
    if (!s.ok()) return Error("infogain_loss_param.source: " + s.message());
  }

  LayerParameter softmax_param(param_);
  softmax_param.set_type("Softmax");
  softmax_param.clear_loss_weight();
  softmax_param.mutable_softmax_param()->set_axis(ip.axis());
  softmax_ = std::make_unique<SoftmaxLayer>(softmax_param,
                                            LayerContext{phase_, 0, engine_name(), scratch_});
  softmax_top_ = {&prob_};
  return softmax_->Setup({bottom[0]}, softmax_top_);
}

Status InfogainLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& scores = *bottom[0];
  const Tensor& labels = *bottom[1];
  if (scores.num_axes() == 0 || labels.num_axes() == 0 || scores.shape(0) != labels.shape(0)) {
    return Error("scores and labels must have the same first dimension: scores " +
                 scores.ShapeString() + ", labels " + labels.ShapeString());
  }
  DT_RETURN_IF_ERROR(softmax_->Reshape({bottom[0]}, {&prob_}));
  const int axis = scores.CanonicalAxisIndex(param_.infogain_loss_param().axis());
  outer_ = scores.count(0, axis);
  channels_ = scores.shape(axis);
  inner_ = scores.count(axis + 1);
  if (outer_ * inner_ != labels.count()) {
    return Error("needs one label per prediction: scores " + scores.ShapeString() +
                 " with infogain axis " + std::to_string(axis) + " need " +
                 std::to_string(outer_ * inner_) + " labels, got " + labels.ShapeString());
  }
  const Tensor& h = H(bottom);
  if (h.count() != static_cast<int64_t>(channels_) * channels_) {
    return Error(std::string("H ") +
                 (bottom.size() > 2 ? "(bottom 2)" : "(infogain_loss_param.source)") +
                 " must hold " + std::to_string(channels_) + " x " + std::to_string(channels_) +
                 " values for " + std::to_string(channels_) + " classes, got " + h.ShapeString());
  }
  // H from the file never changes: its row sums are computed once; a bottom H in every Backward.
  if (bottom.size() < 3) SumRows(h, channels_, &row_sums_);
  top[0]->Reshape({});
  if (top.size() > 1) top[1]->ReshapeLike(scores);
  return Status::Ok();
}

Status InfogainLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  softmax_bottom_.assign(1, bottom[0]);
  DT_RETURN_IF_ERROR(softmax_->Forward(softmax_bottom_, softmax_top_, nullptr));
  const float* p = prob_.data();
  const float* label = bottom[1]->data();
  const float* h = H(bottom).data();
  double loss = 0;
  int64_t valid = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t i = 0; i < inner_; ++i) {
      const int l = static_cast<int>(label[o * inner_ + i]);
      if (Ignored(l)) continue;
      if (l < 0 || l >= channels_) {
        return Error("label " + std::to_string(l) + " at position " +
                     std::to_string(o * inner_ + i) + " is outside [0, " +
                     std::to_string(channels_) + ")");
      }
      for (int c = 0; c < channels_; ++c) {
        const float pc = std::max(p[(o * channels_ + c) * inner_ + i], kLogThreshold);
        loss -= static_cast<double>(h[l * channels_ + c]) * std::log(pc);
      }
      ++valid;
    }
  }
  top[0]->mutable_data()[0] =
      static_cast<float>(loss / LossNormalizer(normalization_, outer_, inner_, valid));
  if (top.size() > 1) top[1]->ShareData(prob_);
  return Status::Ok();
}

void InfogainLossLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                     const TensorVec& bottom) {
  // Labels and a bottom H get no gradient (AllowForceBackward is false for them); their
  // propagate_down is ignored.
  if (!propagate_down[0]) return;
  const Tensor& h_tensor = H(bottom);
  if (bottom.size() > 2) SumRows(h_tensor, channels_, &row_sums_);
  const float* h = h_tensor.data();
  const float* p = prob_.data();
  const float* label = bottom[1]->data();
  float* dx = bottom[0]->mutable_diff();
  int64_t valid = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t i = 0; i < inner_; ++i) {
      const int l = static_cast<int>(label[o * inner_ + i]);
      const bool ignored = Ignored(l);
      for (int c = 0; c < channels_; ++c) {
        const int64_t k = (o * channels_ + c) * inner_ + i;
        dx[k] = ignored ? 0.f : p[k] * row_sums_[l] - h[l * channels_ + c];
      }
      if (!ignored) ++valid;
    }
  }
  const float scale = top[0]->diff()[0] / LossNormalizer(normalization_, outer_, inner_, valid);
  for (int64_t k = 0; k < bottom[0]->count(); ++k) dx[k] *= scale;
}

}  // namespace dtrain
