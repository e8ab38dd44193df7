// PSROIPoolingLayer: R-FCN's position-sensitive average pooling of regions of interest (its
// PSROIPooling, as Intel Caffe carries it).
//
// Bottoms: the score maps (N, output_dim * group_size^2, H, W) and the rois, R rows of (batch
// index, x1, y1, x2, y2) in image pixels (layers/roi_rows.h). Top: (R, output_dim, group_size,
// group_size). Parameters (psroi_pooling_param): spatial_scale (finite), output_dim and group_size
// (positive); the bottom's channel count must be output_dim * group_size^2.
//
// A region spans [round(x1) * spatial_scale, (round(x2) + 1) * spatial_scale) in feature cells
// (rounding halves away from zero; float arithmetic, as Caffe), at least 0.1 cells each way, and is
// cut into group_size x group_size bins: bin (gh, gw) covers rows [floor(y1' + gh * bin_h),
// ceil(y1' + (gh + 1) * bin_h)) clipped to [0, H), and likewise along x. Top (r, c, gh, gw) is the
// mean of that bin over channel (c * group_size + gh) * group_size + gw of the region's image; a
// bin clipped to nothing is 0. Backward spreads each bin's top diff evenly over its cells
// (accumulating where bins overlap); the rois get a zero gradient (Caffe leaves
// theirs unwritten: py-faster-rcnn nets backpropagate through them into Python layers whose
// backward does nothing). A
// row whose batch index is outside [0, N), or whose values or scaled corners are not finite, is
// an error naming it.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class PSROIPoolingLayer : public Layer {
 public:
  PSROIPoolingLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "PSROIPooling"; }
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
  float spatial_scale_ = 1.f;
  int output_dim_ = 0;
  int group_size_ = 0;
  std::vector<int> roi_batch_;  // per roi, its batch index (read in Forward)
  // Per roi and bin index g, the [start, end) rows at 2 g, 2 g + 1 of bin_rows_ (columns in
  // bin_cols_), computed in Forward and used again by Backward.
  std::vector<int64_t> bin_rows_;
  std::vector<int64_t> bin_cols_;
};

}  // namespace dtrain
