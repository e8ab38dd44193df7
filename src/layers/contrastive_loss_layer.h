// ContrastiveLossLayer: Caffe's contrastive loss over pairs of feature vectors (Hadsell et al.
// 2006), for siamese nets.
//
// Bottoms: a and b, N items of C features each (Caffe's N x C x 1 x 1; any shapes with the same
// first dimension and the same count per item are read as N vectors of C), and y, N pair labels
// (any shape with count N): y != 0 (as an int) marks a similar pair. Top: the loss, a scalar
// (shape {}), loss weight 1 by default. With d_i = ||a_i - b_i|| and m = contrastive_loss_param
// .margin (default 1):
//   loss = sum_i l_i / (2 N),  l_i = d_i^2 for similar pairs, else
//          max(m - d_i, 0)^2      (default)
//          max(m - d_i^2, 0)      (legacy_version: true, the original Caffe form)
// Backward (a and b get gradients; y never does): with w = top[0]'s diff (the loss weight, primed
// by the net), da_i = w / N * (a_i - b_i) * g_i and db_i = -da_i, where g_i = 1 for similar pairs;
// for dissimilar ones g_i = -(m - d_i) / (d_i + 1e-4) (Caffe's guard against d = 0) when
// m - d_i > 0, or g_i = -1 (legacy) when m - d_i^2 > 0, and g_i = 0 otherwise.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class ContrastiveLossLayer : public Layer {
 public:
  ContrastiveLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "ContrastiveLoss"; }
  int ExactNumBottomBlobs() const override { return 3; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  // Unlike most loss layers, both feature bottoms take a gradient; the pair labels do not.
  bool AllowForceBackward(int bottom_index) const override { return bottom_index != 2; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  Tensor difference_;  // a - b, N x C
  Tensor dist_sq_;     // ||a_i - b_i||^2, N
};

}  // namespace dtrain
