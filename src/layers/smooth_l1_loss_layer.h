// SmoothL1LossLayer: Fast R-CNN's bounding-box regression loss (py-faster-rcnn's SmoothL1Loss, as
// Intel Caffe carries it).
//
// Bottoms: prediction p and target t, and optionally both bbox_inside_weights w_in and
// bbox_outside_weights w_out (2 or 4 bottoms), all of one shape as Caffe compares them: equal
// num, channels, height and width (at most 4 axes, missing trailing axes read as 1). Top: the
// loss, a scalar (shape {}), loss weight 1 by default. Parameter: smooth_l1_loss_param.sigma
// (default 1; finite and not 0); loss_param.normalization NONE divides by 1, any other mode by
// the batch size N = p.shape(0), as Intel Caffe reads it.
//
//   d = w_in (p - t)   (w_in = 1 without weights)
//   loss = sum of w_out f(d) / N,  f(d) = 0.5 sigma^2 d^2 where |d| < 1 / sigma^2, else
//          |d| - 0.5 / sigma^2   (w_out = 1 without weights)
//
// Backward: dp = g w_in w_out f'(d) / N and dt = -dp, f'(d) = sigma^2 d or sign(d), g the top's
// diff. The weights get none: as Caffe's, a net may still ask (py-faster-rcnn's files, whose
// weights come from a Python layer with a bottom that needs a gradient), and their diffs are 0.
// An empty batch (N = 0) gives loss 0.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class SmoothL1LossLayer : public Layer {
 public:
  SmoothL1LossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "SmoothL1Loss"; }
  int MinBottomBlobs() const override { return 2; }
  int MaxBottomBlobs() const override { return 4; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  // Both prediction and target take gradients, as in Caffe; the weights 0.
  bool AllowForceBackward(int bottom_index) const override { return bottom_index < 2; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // What the summed loss is divided by: 1, or the batch size (0 for an empty batch).
  float Normalizer(const TensorVec& bottom) const;

  float sigma2_ = 1.f;     // sigma^2
  bool weighted_ = false;  // 4 bottoms
  bool normalize_ = true;  // by the batch size (loss_param.normalization is not NONE)
  Tensor difference_;      // d = w_in (p - t)
};

}  // namespace dtrain
