// TanHLayer: y = tanh(x), element-wise.
//
// One bottom, one top of the same shape; may run in place. No parameters (tanh_param.engine is
// accepted and ignored). Backward: dx = dy * (1 - y^2), computed from the top alone.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class TanHLayer : public Layer {
 public:
  TanHLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "TanH"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;
};

}  // namespace dtrain
