// SmoothL1LossOHEMLayer: R-FCN's bounding-box regression loss with a per-ROI loss for online hard
// example mining (Intel Caffe's SmoothL1LossOHEM; smooth_l1.h has f).
//
// Bottoms: prediction p and target t, and optionally bbox_inside_weights w (2 or 3 bottoms), all
// of one shape as Caffe compares them: equal num N, channels C, height H and width W (at most 4
// axes, missing trailing axes read as 1); R-FCN's are (R, 4 K, 1, 1), a row per region. Tops: the
// loss, a scalar (shape {}, loss weight 1 by default), and optionally the per-ROI loss
// (N, 1, H, W), whose loss_weight must be 0: Intel Caffe's backward ignores its diff (it feeds
// BoxAnnotatorOHEM, never a gradient), so a weight there would count in the loss and not in the
// gradient.
//
//   d = w (p - t)   (w = 1 without weights)
//   loss = sum of f(d) / normalizer,   per_roi[n, 0, h, x] = sum over c of f(d[n, c, h, x])
//
// with sigma 1: Intel's layer reads no sigma, so smooth_l1_loss_param.sigma other than 1 is
// refused. The normalizer, loss_param.normalization (default VALID; legacy `normalize: true`
// means VALID, false BATCH_SIZE), is FULL or VALID: N H W (no label is ignored here), BATCH_SIZE:
// N, NONE: 1, PRE_FIXED: loss_param.pre_fixed_normalizer (R-FCN's 128); at least 1
// (loss_normalization.h).
//
// Backward: dp = g w f'(d) / normalizer and dt = -dp, g top 0's diff. Intel Caffe leaves out the
// factor w, which changes nothing for R-FCN's weights of 0 and 1 (f'(0) = 0); dtrain gives the
// gradient of the loss it reports for any weight. The weights get none: as in Caffe a net may
// still ask, and their diff is 0.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class SmoothL1LossOHEMLayer : public Layer {
 public:
  SmoothL1LossOHEMLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "SmoothL1LossOHEM"; }
  int MinBottomBlobs() const override { return 2; }
  int MaxBottomBlobs() const override { return 3; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  // Prediction and target take gradients, the weights 0.
  bool AllowForceBackward(int bottom_index) const override { return bottom_index < 2; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  float Normalizer() const;

  bool weighted_ = false;                         // 3 bottoms
  int normalization_ = 1;                         // LossParameter::NormalizationMode
  int64_t outer_ = 1, channels_ = 1, inner_ = 1;  // N, C, H W
  Tensor difference_;                             // d = w (p - t)
};

}  // namespace dtrain
