// ReorgLayer: YOLO v2's passthrough reorganisation (the Reorg of the YOLO v2 ports, as Intel
// Caffe carries it), which moves stride x stride blocks of cells between space and channels with
// darknet's index arithmetic, not a plain space-to-depth.
//
// One bottom (N, C, H, W), one top, not in place. Parameters (reorg_param): stride (required,
// positive) and reverse (default false). Write s for the stride, C' = C / s^2, and P for the map
// from an index of (N, C, H, W) to one of (N, C', H s, W s):
//
//   P(n, c, h, w) = (n, c mod C', h s + (c div C') div s, w s + (c div C') mod s).
//
// reverse false: top (N, C s^2, H / s, W / s); the top's values, read in memory order as an
//   (N, C, H, W) array t, are t[i] = bottom[P(i)] with the bottom read as (N, C', H s, W s). So
//   a channel of the top is not one offset of every block: darknet's layout, which YOLO v2's
//   weights were trained on.
// reverse true: top (N, C', H s, W s), top[P(i)] = bottom[i].
//
// Both are permutations of the values, and Backward applies the inverse one to the top diff. C
// must be a multiple of s^2, and without reverse H and W multiples of s (anything else reads or
// writes outside the tensors in Caffe); an error says which.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class ReorgLayer : public Layer {
 public:
  ReorgLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Reorg"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // Calls move(i, P(i)) for every flat index i of an array of the bottom's shape (N, C, H, W).
  template <typename Move>
  void ForEachPair(Move move) const;

  int stride_ = 0;
  bool reverse_ = false;
  int dims_[4] = {};  // the bottom's N, C, H, W
};

}  // namespace dtrain
