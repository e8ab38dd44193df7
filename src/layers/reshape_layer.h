// ReshapeLayer: gives its bottom a new shape without moving data.
//
// One bottom, one top; never in place. Parameters (reshape_param): `shape`, the new dims for the
// replaced range of axes, where 0 copies the bottom's dim at the same position and a single -1 is
// inferred from the element count; `axis` (default 0; negative counts from the end, -1 meaning
// "after the last axis") and `num_axes` (default -1: to the end) select the replaced range. The top
// shares the bottom's data and diff, so Forward and Backward copy nothing.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class ReshapeLayer : public Layer {
 public:
  ReshapeLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Reshape"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override {
    return Status::Ok();
  }
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  std::vector<int> copy_axes_;  // positions in `shape` holding 0
  int inferred_axis_ = -1;      // position in `shape` holding -1, if any
  int64_t constant_count_ = 1;  // product of the explicit (> 0) dims
};

}  // namespace dtrain
