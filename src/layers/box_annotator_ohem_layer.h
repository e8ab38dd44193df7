// BoxAnnotatorOHEMLayer: R-FCN's online hard example mining (Intel Caffe's BoxAnnotatorOHEM):
// keeps, of each image's regions of interest, the roi_per_img of highest loss for the losses
// after it, and hides the others from them.
//
// Bottoms, compared by Caffe's legacy num, channels, height and width (at most 4 axes each; R-FCN's
// have H = W = 1, a region per row):
//   0  rois (R, 5, H, W): per region (batch index, x1, y1, x2, y2); only the batch index is read,
//      truncated toward zero as Caffe's int conversion does
//   1  the per-region loss (R, 1, H, W): SoftmaxWithLossOHEM's plus SmoothL1LossOHEM's
//   2  the labels (R, 1, H, W)
//   3  the bbox loss weights (R, B, H, W), R-FCN's bbox_inside_weights
// The regions are the R H W positions; region (n, h, w)'s batch index is rois[n, 0, h, w].
// Tops: the labels (R, 1, H, W) and the bbox loss weights (R, B, H, W), the bottoms' values for
// the kept regions; every other region gets box_annotator_ohem_param.ignore_label (default -1)
// and weights 0. Parameters: box_annotator_ohem_param.roi_per_img (required, positive; an image
// with fewer regions keeps them all) and ignore_label. Which regions are kept:
// detection/hard_rois.h (NaN losses first, equal losses by region index).
//
// No gradient: Intel Caffe's backward does nothing, leaving the bottoms' diffs as they were
// (R-FCN's files set propagate_down: false on all four bottoms); here a bottom that needs one gets
// 0. Errors, where Intel Caffe aborts or reads out of bounds: a batch index that is not finite or
// truncates below 0 or beyond an int, no region at all, bottoms whose shapes disagree.
#pragma once

#include <vector>

#include "detection/hard_rois.h"
#include "layers/layer.h"

namespace dtrain {

class BoxAnnotatorOHEMLayer : public Layer {
 public:
  BoxAnnotatorOHEMLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "BoxAnnotatorOHEM"; }
  int ExactNumBottomBlobs() const override { return 4; }
  int ExactNumTopBlobs() const override { return 2; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {
    ZeroBottomDiffsFrom(0, propagate_down, bottom);
  }

 private:
  int roi_per_img_ = 1;
  int ignore_label_ = -1;
  int64_t num_ = 0, spatial_ = 1;  // R and H W
  int bbox_channels_ = 0;          // B
  std::vector<float> loss_;        // per region, for the selection
  std::vector<int> image_;         // per region
  std::vector<char> selected_;     // per region
  detection::HardRoiScratch scratch_;
};

}  // namespace dtrain
