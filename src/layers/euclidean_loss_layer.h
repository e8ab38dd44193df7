// EuclideanLossLayer: loss = sum((a - b)^2) / (2 N), N = a.shape(0).
//
// Bottoms: a and b, with the same first dimension and the same count per item. Top: the loss, a
// scalar (shape {}), loss weight 1 by default. Backward (either bottom may get a gradient): da = w
// * (a - b) / N, db = -da, with w = top[0]'s diff (the loss weight, primed by the net).
#pragma once

#include "layers/layer.h"

namespace dtrain {

class EuclideanLossLayer : public Layer {
 public:
  EuclideanLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "EuclideanLoss"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  Tensor difference_;  // a - b
};

}  // namespace dtrain
