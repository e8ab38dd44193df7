// SigmoidCrossEntropyLossLayer: Caffe's cross-entropy of sigmoid(x) against targets in [0, 1],
// fused with the sigmoid for a stable value and gradient.
//
// Bottoms: scores x (first dimension N, any shape) and targets t (same first dimension and count;
// values in [0, 1], not only 0 and 1). Top: the loss, a scalar (shape {}), loss weight 1 by
// default. Computed without overflow for any x, as in Caffe:
//   loss = -sum_k [x_k (t_k - [x_k >= 0]) - log(1 + exp(x_k - 2 x_k [x_k >= 0]))] / normalizer
// which is -sum_k [t_k log sigmoid(x_k) + (1 - t_k) log(1 - sigmoid(x_k))] / normalizer, summed
// over every element whose target, cast to int, is not loss_param.ignore_label (when set). The
// normalizer (layers/loss_normalization.h) is loss_param.normalization when given; else the legacy
// `normalize` (true: VALID, false: BATCH_SIZE); else BATCH_SIZE: Caffe's historical default for
// this layer, not the field's VALID. FULL counts N * count(1) elements, BATCH_SIZE N.
// Backward (scores only; the targets never get a gradient): with w = top[0]'s diff (the loss
// weight, primed by the net), dx_k = (sigmoid(x_k) - t_k) w / normalizer, 0 at ignored elements,
// with forward's normalizer.
#pragma once

#include "layers/layer.h"
#include "proto/layer_params.pb.h"

namespace dtrain {

class SigmoidCrossEntropyLossLayer : public Layer {
 public:
  SigmoidCrossEntropyLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "SigmoidCrossEntropyLoss"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index != 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  bool Ignored(float target) const {
    return has_ignore_label_ && static_cast<int>(target) == ignore_label_;
  }

  Tensor sigmoid_;  // sigmoid(x), for backward
  bool has_ignore_label_ = false;
  int ignore_label_ = -1;
  LossParameter::NormalizationMode normalization_ = LossParameter::BATCH_SIZE;
  float normalizer_ = 1.f;  // forward's, reused by backward
};

}  // namespace dtrain
