// SoftmaxWithLossLayer: the multinomial logistic loss of a softmax, fused for a stable gradient.
//
// Bottoms: scores (outer x C x inner around softmax_param.axis, default 1) and labels (outer *
// inner class indices in [0, C), any shape with that count). Tops: the loss, a scalar (shape {}),
// and optionally the softmax probabilities (shaped like the scores, loss weight 0).
//   loss = -sum log(max(p[label], FLT_MIN)) / normalizer
// over every location whose label is not loss_param.ignore_label (when set). The normalizer,
// loss_param.normalization (default VALID; legacy `normalize: false` means BATCH_SIZE), is
// FULL: outer * inner, VALID: the non-ignored count, BATCH_SIZE: outer, NONE: 1, PRE_FIXED:
// loss_param.pre_fixed_normalizer (Intel Caffe's); at least 1 (layers/loss_normalization.h).
// A label outside [0, C) (after Caffe's truncation to int) is an error, NaN included.
// Backward: dscores = (p - onehot(label)) * w / normalizer, 0 at ignored locations, where w is
// top[0]'s diff (the loss weight, primed by the net). The labels never get a gradient.
#pragma once

#include <memory>

#include "layers/layer.h"
#include "layers/softmax_layer.h"

namespace dtrain {

class SoftmaxWithLossLayer : public Layer {
 public:
  SoftmaxWithLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "SoftmaxWithLoss"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index != 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;
  // The forward pass of top 0 (and top 1, the probabilities, when given); with `per_location`
  // (outer * inner values, the labels' order) also each location's loss before normalization,
  // -log(max(p[label], FLT_MIN)), and 0 where the label is ignored (SoftmaxWithLossOHEM's top).
  Status ForwardLoss(const TensorVec& bottom, const TensorVec& top, float* per_location);

 private:
  float Normalizer(int64_t valid_count) const;
  bool Ignored(int label) const { return has_ignore_label_ && label == ignore_label_; }

  std::unique_ptr<SoftmaxLayer> softmax_;
  Tensor prob_;
  TensorVec softmax_bottom_, softmax_top_;  // the inner softmax's bottom and top (prob_)
  bool has_ignore_label_ = false;
  int ignore_label_ = -1;
  int normalization_ = 1;  // LossParameter::NormalizationMode
  int64_t outer_ = 1, inner_ = 1;
  int channels_ = 1;
};

}  // namespace dtrain
