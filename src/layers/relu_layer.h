// ReLULayer: y = max(0, x) + negative_slope * min(0, x), element-wise (leaky when the slope is
// non-zero).
//
// One bottom, one top of the same shape; may run in place (top == bottom). Parameters:
// relu_param.negative_slope (default 0). Backward: dx = dy for x > 0, negative_slope * dy
// otherwise. Computed by the ReLU op's kernel (kernels/relu.h).
#pragma once

#include "kernels/relu.h"
#include "layers/layer.h"

namespace dtrain {

class ReLULayer : public Layer {
 public:
  ReLULayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "ReLU"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  LayoutPtr layout_;  // the forward pass's (ElementwiseLayout), for backward
  kernels::KernelChoice<kernels::UnaryKernel, kernels::ReluProblem> kernel_;
};

}  // namespace dtrain
