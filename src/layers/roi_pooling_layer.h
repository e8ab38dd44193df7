// ROIPoolingLayer: Fast R-CNN's max pooling of regions of interest (py-faster-rcnn's ROIPooling,
// as Intel Caffe carries it).
//
// Bottoms: the features (N, C, H, W) and the rois, R rows of (batch index, x1, y1, x2, y2) in image
// pixels (layers/roi_rows.h). Top: (R, C, pooled_h, pooled_w); the position of each bin's maximum
// is kept for Backward (not a top). Parameters (roi_pooling_param): pooled_h, pooled_w (both
// required, positive), spatial_scale (default 1, finite), which maps image pixels to feature
// cells; Intel Caffe's 3-D variant (pooled_size, 5-axis features) is refused by name.
//
// Each region's corners are round(coordinate * spatial_scale) (halves away from zero), its size
// max(x2 - x1 + 1, 1) by max(y2 - y1 + 1, 1) cells, divided into bins: bin ph spans rows
// [y1 + floor(ph * size_h / pooled_h), y1 + ceil((ph + 1) * size_h / pooled_h)) in float, clipped
// to [0, H), and likewise along x. A bin holds the maximum of its cells (the first of equal maxima
// in row-major order); a bin clipped to nothing holds 0 and has no maximum. Backward adds each
// bin's top diff to the feature cell of its maximum (bins without one pass nothing); the rois
// get a zero gradient (Caffe leaves theirs unwritten: py-faster-rcnn nets backpropagate
// through them into Python layers whose backward does nothing). A row whose batch index is outside
// [0, N) or whose values are not finite, or whose scaled corner is beyond an int, is an error
// naming it.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class ROIPoolingLayer : public Layer {
 public:
  ROIPoolingLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "ROIPooling"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index == 0; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // The corner of `row`'s coordinate k (1..4) in feature cells, or an error naming the row.
  StatusOr<int64_t> ScaledCorner(const float* row_values, int64_t row, int k) const;

  int pooled_h_ = 0;
  int pooled_w_ = 0;
  float spatial_scale_ = 1.f;
  std::vector<int> roi_batch_;     // per roi, its batch index (read in Forward)
  std::vector<int64_t> corners_;   // per roi, x1 y1 x2 y2 in feature cells
  std::vector<int64_t> argmax_;    // per top element, h * W + w of its maximum, or -1
  std::vector<int64_t> bin_rows_;  // per ph, the [start, end) rows of the current roi
  std::vector<int64_t> bin_cols_;  // per pw, the [start, end) columns of the current roi
};

}  // namespace dtrain
