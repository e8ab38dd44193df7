// FilterLayer: keeps the items (rows of axis 0) whose selector is non-zero (Caffe's Filter).
//
// Bottoms: K >= 1 blobs to filter, then the selector, last: shape (N) or (N, 1, 1, ...), every
// axis after the first of size 1. Every filtered bottom has N items. Tops: K, one per filtered
// bottom, top k = the items i of bottom k with selector[i] != 0, in order: its shape is bottom k's
// with axis 0 = the number selected (possibly 0). Since that number depends on the selector's
// values, Forward reshapes the tops every time; at setup they have N items (as in Caffe).
// Backward: bottom k's diff is the top diff on the selected items and 0 on the others. The
// selector gets no gradient (Caffe refuses to backpropagate to it): a net in which it would need
// one is an error when built. Not in place.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class FilterLayer : public Layer {
 public:
  FilterLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Filter"; }
  int MinBottomBlobs() const override { return 2; }
  int MinTopBlobs() const override { return 1; }
  bool BottomHasGradient(int bottom_index) const override;
  bool AllowForceBackward(int bottom_index) const override {
    return BottomHasGradient(bottom_index);
  }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // Reshapes top k to `items` items of bottom k.
  void ReshapeTops(const TensorVec& bottom, const TensorVec& top, int items) const;

  int num_bottoms_ = 0;
  std::vector<int> selected_;  // items with a non-zero selector, in order
};

}  // namespace dtrain
