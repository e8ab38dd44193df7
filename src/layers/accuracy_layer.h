// AccuracyLayer: the fraction of predictions whose true label is among the top_k scores.
//
// Bottoms: scores (outer x C x inner along accuracy_param.axis, default 1) and labels (outer *
// inner class indices). Tops: the accuracy, a scalar (shape {}), and optionally the per-class
// accuracy, shape {C} (correct / seen for each class; 0 for a class not seen). A prediction is
// correct when fewer than top_k (default 1) classes score >= the true class's score other than the
// true class itself (ties count against it, as in Caffe). Locations labelled
// accuracy_param.ignore_label (when set) are skipped; a label outside [0, C) is an error. Not
// differentiable: Backward does nothing and force_backward never reaches the bottoms.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class AccuracyLayer : public Layer {
 public:
  AccuracyLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Accuracy"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  int64_t outer_ = 1, inner_ = 1;
  int channels_ = 1;
  std::vector<int64_t> seen_;  // per class, for the per-class top
};

}  // namespace dtrain
