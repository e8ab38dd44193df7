// PriorBoxLayer: SSD's default boxes (Wei Liu's fork, carried by Intel Caffe) for one feature map,
// as corners normalised by the image size, with their variances.
//
// Two bottoms: the feature map (N, C, H, W) and the image (N, C, img_h, img_w), each of at most 4
// axes (missing trailing axes count as 1, as Caffe's accessors read them); only their shapes are
// read. One top, shape {1, 2, H * W * num_priors * 4}: channel 0 holds the boxes, channel 1 their
// variances. Boxes run cell by cell (h, then w), and in each cell, for each min_size in turn: the
// square of side min_size; then, with max_size, the square of side sqrt(min_size * max_size);
// then for each aspect ratio r other than 1, the box min_size * sqrt(r) wide and
// min_size / sqrt(r) high. Each box is 4 values: xmin, ymin, xmax, ymax, the cell's centre
// ((w + offset) * step_w, (h + offset) * step_h) minus and plus half the box, divided by the image
// width or height.
//
// Parameters (prior_box_param), refused by name where Intel Caffe stops:
// - min_size (required, each positive) and max_size (none, or one per min_size, each above its
//   min_size): pixels, truncated to whole pixels before use, as Intel Caffe and SSD do (30.9 is
//   30; sqrt(min_size * max_size) of the truncated values).
// - aspect_ratio: the ratios besides 1, in the order given; with flip (default true) each r is
//   followed by 1 / r; a ratio within 1e-6 of one already listed (1 included) is dropped. Each
//   must be positive and finite (dtrain's check: Intel Caffe makes boxes of NaN or infinite
//   size). num_priors = (1 + ratios kept) * min_sizes + max_sizes.
// - clip (default false): every box coordinate clamped to [0, 1].
// - variance: none (0.1 for every coordinate), one (for every coordinate) or four (xmin, ymin,
//   xmax, ymax); each positive and finite.
// - img_size, or img_h and img_w (not both kinds; each positive): the image size; by default the
//   second bottom's height and width.
// - step, or step_h and step_w (not both kinds; each positive and finite): the distance between
//   cell centres in pixels; by default image size / feature map size per axis.
// - offset (default 0.5, finite): of the centre within its cell, in cells.
// The values depend on the shapes only. No gradient (Caffe's Backward does nothing): a net in
// which a bottom of this layer needs one is an error when built (SSD's nets never ask; the loss
// takes no gradient for the priors).
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class PriorBoxLayer : public Layer {
 public:
  PriorBoxLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "PriorBox"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool HasGradient() const override { return false; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  // The top's values for the shapes of the last Reshape: they depend on nothing else (what
  // dtrain export onnx writes as a constant).
  void ComputePriors(float* out) const;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  // Never asked for a bottom diff (see the header); does nothing.
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  std::vector<int> min_sizes_;  // whole pixels
  std::vector<int> max_sizes_;  // whole pixels; empty, or one per min size
  std::vector<float> ratios_;   // the aspect ratios other than 1, flipped ones included
  std::vector<float> variances_;
  bool clip_ = false;
  int img_h_ = 0, img_w_ = 0;      // given sizes; 0: the second bottom's
  float step_h_ = 0, step_w_ = 0;  // given steps; 0: image size / feature size
  float offset_ = 0.5f;
  int num_priors_ = 0;  // boxes per cell
  // Of the last Reshape.
  int layer_h_ = 0, layer_w_ = 0, image_h_ = 0, image_w_ = 0;
};

}  // namespace dtrain
