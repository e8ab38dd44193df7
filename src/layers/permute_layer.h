// PermuteLayer: SSD's Permute (Wei Liu's fork, carried by Intel Caffe): the bottom's axes in a new
// order, e.g. order 0 2 3 1 turns N x C x H x W into N x H x W x C.
//
// One bottom of any number of axes, one top; not in place. Parameter: permute_param.order, a list
// of bottom axes: top axis i is bottom axis order(i), and the bottom axes the list does not name
// follow in their own order (so order 1 on a 4-axis bottom is 1 0 2 3). Each value must be an axis
// of the bottom (less than its number of axes) and named once; the bottom keeps its number of
// axes from Setup on. The identity order copies the values (Caffe shares the bottom's data there;
// the values are the same). Backward moves each top diff back to the bottom element it came from
// (every bottom diff is written, none accumulated).
#pragma once

#include <cstdint>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class PermuteLayer : public Layer {
 public:
  PermuteLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Permute"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // Walks the top in its row-major order; top element t is bottom element `source` (the sum of
  // the top's indices times source_strides_). Forward: to[t] = from[source]; backward (inverse):
  // to[source] = from[t].
  void Move(const float* from, float* to, bool inverse) const;

  std::vector<int> order_;               // top axis i is bottom axis order_[i]
  std::vector<int> top_shape_;           // the bottom's shape in order_
  std::vector<int64_t> source_strides_;  // per top axis, the bottom stride of its axis
};

}  // namespace dtrain
