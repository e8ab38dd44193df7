// RegionLossLayer: YOLO v2's training loss ("RegionLoss", the YOLO v2 port Intel Caffe carries),
// over a side x side grid of `num` anchors, with Intel's exact targets and quirks.
//
// Bottoms: predictions (N, num (coords + num_class + 1), side, side), per cell (j, i) and anchor n
// the channels n (num_class + 5) + k: k = 0..3 the box (tx, ty, tw, th), 4 the objectness, 5..
// the class scores; labels (1, 1, G, 8) from AnnotatedData (layers/region_labels.h: class
// group_label - 1, a centre box; BoxData's layout is refused). Top: a scalar, loss weight 1 by
// default.
//
// Forward, per image b, on p = sigmoid(objectness), q = softmax(class scores) and the boxes of
// detection/region_box.h (anchor n of biases[2n], biases[2n + 1] cells), computes a delta D per
// input value (0 where nothing is written):
//   1. every cell and anchor: D_obj = noobject_scale p * p (1 - p), set back to 0 when the
//      predicted box's best IoU with the image's truths exceeds `thresh`;
//   2. every truth t, in row order, with the cell (i, j) = (int(x side), int(y side)) holding
//      its centre: the anchor n of that cell whose box, both centred at 0, overlaps t's size best
//      (with bias_match the anchor's own size, else the predicted size; the first of equals;
//      where none overlaps, which only degenerate predicted sizes without bias_match give,
//      Intel's default, anchor 0 of cell 0 of item 0), then at that anchor, overwriting:
//        D_x = -coord_scale c(tx - sigmoid(x)) sigmoid'(x), tx = x_t side - i (D_y alike),
//        D_w = -coord_scale c(tw - w), tw = log(w_t side / anchor_w) (D_h alike),
//          c(d) = d clipped to [-1, 1] (a Huber loss on the difference);
//        D_obj = -object_scale 2 (1 - p)^3 p (1 - p);
//        D_class_k = -class_scale ([k == label] - q_k).
//   loss = sum of D^2 over the whole batch (not divided by N): Intel's reported value.
// Backward: bottom diff = D * top_diff / N, overwritten; labels get no gradient.
//
// So D is the gradient of an implied loss that is not the reported one: per value written last,
// noobject_scale p^2 / 2, coord_scale Huber(tx - sigmoid(x)) (and of tw - w), object_scale
// (1 - p)^4 / 2, class_scale cross-entropy of q; the IoU tests (which anchor, which cell passes
// `thresh`) are constants of it. With rescore Intel's target for the objectness is this fixed
// (1 - p)^4 term, not the IoU, which the implied loss therefore does not contain.
//
// Parameters (region_loss_param): side, num_class, num, coords (4 only), biases (exactly 2 num,
// positive), object_scale, noobject_scale, class_scale, coord_scale, thresh (finite), bias_match;
// softmax must be 1 (class scores are always a softmax); jitter, rescore, absolute and random
// are read and have no effect, as in Intel's layer. softmax_tree and class_map (YOLO 9000's
// hierarchy and class remapping) are refused by name.
//
// Refused where Intel reads outside its buffers or trains on nonsense: a bottom of another shape,
// labels not (1, 1, G, 8), a row's item outside the batch, a value that is not finite, a class
// outside [0, num_class), a truth whose centre lies outside the grid (the cell int(x side) or
// int(y side) not in [0, side)), or whose width or height is not positive (Intel then trains
// item 0's first anchor on it). Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/layer.h"
#include "layers/region_labels.h"

namespace dtrain {

class RegionLossLayer : public Layer {
 public:
  RegionLossLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "RegionLoss"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool AutoTopBlobs() const override { return true; }
  float DefaultLossWeight(int top_index) const override { return top_index == 0 ? 1.f : 0.f; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index == 0; }
  bool BottomHasGradient(int bottom_index) const override { return bottom_index == 0; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // Steps 1 and 2 of the forward for image b, writing delta_ (x: the whole bottom).
  void ImageDeltas(int b, const float* x);
  // The offset in the bottom of value k of anchor n in cell `cell` of image b.
  int64_t At(int b, int cell, int n, int k) const {
    return ((static_cast<int64_t>(b) * channels_ + n * (num_class_ + 5) + k) * side_ * side_) +
           cell;
  }

  int side_ = 0, num_class_ = 0, num_ = 0, channels_ = 0;
  bool bias_match_ = true;
  float object_scale_ = 0, noobject_scale_ = 0, class_scale_ = 0, coord_scale_ = 0, thresh_ = 0;
  std::vector<float> biases_;

  // Per forward, kept for backward.
  std::vector<float> delta_;  // D, in the bottom's layout
  std::vector<std::vector<RegionTruth>> truths_;
  std::vector<float> probs_;  // one anchor's class softmax
};

}  // namespace dtrain
