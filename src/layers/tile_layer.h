// TileLayer: repeats its bottom tile_param.tiles times along tile_param.axis (Caffe's Tile).
//
// One bottom, one top: the bottom's shape with shape[axis] multiplied by tiles. axis defaults to
// 1 (negative counts from the end); tiles must be given and positive. For each of the
// count(0, axis) outer slices, the block of count(axis) values is written tiles times in a row
// (1 2 | 3 4 tiled twice on axis 1 gives 1 2 1 2 | 3 4 3 4). Backward: each bottom value gets
// the sum of the diffs of its copies. Not in place.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class TileLayer : public Layer {
 public:
  TileLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Tile"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int tiles_ = 1;
  int64_t outer_ = 1;  // count(0, axis)
  int64_t inner_ = 1;  // count(axis): one block
};

}  // namespace dtrain
