// SoftmaxWithLossOHEMLayer: R-FCN's classification loss with a per-ROI loss for online hard
// example mining (Intel Caffe's SoftmaxWithLossOHEM): SoftmaxWithLoss (softmax_with_loss_layer.h),
// whose bottoms, top 0, parameters, normalization and backward it has unchanged, plus a third top.
//
// Tops: the loss (loss weight 1 by default), optionally the softmax probabilities (shaped like the
// scores) and the per-ROI loss, shaped like the labels: each location's -log(max(p[label],
// FLT_MIN)) before normalization, 0 where the label is loss_param.ignore_label. R-FCN wires all
// three with loss_weight 0 and feeds the third, summed with SmoothL1LossOHEM's, to
// BoxAnnotatorOHEM. The per-ROI top's loss_weight must be 0: Intel Caffe's backward ignores its
// diff, so a weight there would count in the loss and not in the gradient.
//
// Where Intel Caffe differs (it writes the per-ROI losses into the scores' diff and reads them
// back from there): with ignored labels its loss sums the first `valid count` entries of that
// scratch instead of the valid locations' losses, and its per-ROI top holds stale values at
// ignored locations; both are the sum over valid locations and 0 here (the same wherever no label
// is ignored, as in R-FCN). With three tops it leaves the probabilities top unwritten; here it
// holds them.
#pragma once

#include "layers/softmax_with_loss_layer.h"

namespace dtrain {

class SoftmaxWithLossOHEMLayer : public SoftmaxWithLossLayer {
 public:
  SoftmaxWithLossOHEMLayer(const LayerParameter& p, const LayerContext& c)
      : SoftmaxWithLossLayer(p, c) {}
  const char* type() const override { return "SoftmaxWithLossOHEM"; }
  int MaxTopBlobs() const override { return 3; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
};

}  // namespace dtrain
