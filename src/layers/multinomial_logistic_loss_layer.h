// MultinomialLogisticLossLayer: Caffe's negative log-likelihood of given class probabilities (the
// loss to put after a Softmax; SoftmaxWithLoss fuses the two for a stabler gradient).
//
// Bottoms: probabilities p (N items of D = count / N each, any shape) and labels (N class indices
// in [0, D), first dimension N and count N, Caffe's N x 1 x 1 x 1). Top: the loss, a scalar
// (shape {}), loss weight 1 by default.
//   loss = -sum_i log(max(p_i[label_i], 1e-20)) / N
// (1e-20 is Caffe's kLOG_THRESHOLD; loss_param is not read: no ignore_label, always / N). A label
// outside [0, D) is an error.
// Backward (probabilities only; the labels never get a gradient): with w = top[0]'s diff (the
// loss weight, primed by the net), dp_i[label_i] = -w / (N max(p_i[label_i], 1e-20)), and every
// other element of dp is 0.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class MultinomialLogisticLossLayer : public Layer {
 public:
  MultinomialLogisticLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "MultinomialLogisticLoss"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index != 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

  static constexpr float kLogThreshold = 1e-20f;  // Caffe's kLOG_THRESHOLD

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;
};

}  // namespace dtrain
