// ArgMaxLayer: the indices (and optionally the values) of the top_k largest inputs (Caffe's
// ArgMax).
//
// One bottom, one top. Parameters: argmax_param.top_k (default 1, at least 1), out_max_val
// (default false), axis (optional; negative counts from the end).
// - With axis: the maximum is taken along that axis for every other position; the top has the
//   bottom's shape with shape[axis] = top_k and holds the indices, or the values when
//   out_max_val. top_k must not exceed shape[axis].
// - Without axis: over all count(1) values of each item of axis 0; the top is N x 1 x top_k (N x
//   2 x top_k with out_max_val: the top_k indices, then the top_k values), padded with trailing
//   1s to the bottom's number of axes when it has more than 3. top_k must not exceed count(1).
// Ranks run largest value first; equal values rank the larger index first, as Caffe's sort of
// (value, index) pairs does. Indices are written as floats. No gradient (Caffe's Backward is not
// implemented): a net in which this layer's bottom would need one is an error when built.
#pragma once

#include <utility>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class ArgMaxLayer : public Layer {
 public:
  ArgMaxLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "ArgMax"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  bool HasGradient() const override { return false; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  // Never asked for a bottom diff (see the header); does nothing.
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  int axis_ = -1;       // -1: no axis (per item of axis 0)
  int64_t dim_ = 1;     // candidates per position
  int64_t stride_ = 1;  // distance between candidates in memory
  std::vector<std::pair<float, int>> ranked_;
};

}  // namespace dtrain
