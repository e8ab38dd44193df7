// FlattenLayer: merges the axes [axis, end_axis] of its bottom into one, without moving data.
//
// One bottom, one top; never in place. Parameters: flatten_param.axis (default 1) and end_axis
// (default -1, the last axis); negative values count from the end. E.g. N x C x H x W becomes N x
// (C*H*W). The top shares the bottom's data and diff, so Forward and Backward copy nothing.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class FlattenLayer : public Layer {
 public:
  FlattenLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Flatten"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override {
    return Status::Ok();
  }
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}
};

}  // namespace dtrain
