// HingeLossLayer: Caffe's one-versus-all hinge loss for classification.
//
// Bottoms: scores x (N items of D = count / N scores each, any shape) and labels (N class
// indices in [0, D), first dimension N and count N). Top: the loss, a scalar (shape {}), loss
// weight 1 by default. With t_ij = 1 for j = label_i and -1 otherwise, the margins are
// e_ij = max(0, 1 - t_ij x_ij), and
//   loss = sum_ij e_ij / N        hinge_loss_param.norm L1 (the default)
//   loss = sum_ij e_ij^2 / N      norm L2
// (Caffe's L2 form: no 1/2, and not normalized by anything but N; loss_param is not read). A label
// outside [0, D) is an error.
// Backward (scores only; the labels never get a gradient): with w = top[0]'s diff (the loss weight,
// primed by the net), dx_ij = -t_ij * w / N where e_ij > 0, else 0 (L1); dx_ij = -2 t_ij e_ij w / N
// (L2).
#pragma once

#include "layers/layer.h"

namespace dtrain {

class HingeLossLayer : public Layer {
 public:
  HingeLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "HingeLoss"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index != 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  Tensor margins_;  // e_ij, shaped like the scores (Caffe keeps them in the bottom's diff)
};

}  // namespace dtrain
