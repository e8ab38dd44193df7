// SoftmaxLayer: y = exp(x) / sum(exp(x)) along one axis, independently at every other position.
//
// One bottom, one top of the same shape. Parameters: softmax_param.axis (default 1, the channel
// axis; negative counts from the end); engine (CAFFE = reference). Backward:
// dx = (dy - sum_axis(dy * y)) * y. Computed by the Softmax op's kernel (kernels/softmax.h).
#pragma once

#include "kernels/softmax.h"
#include "layers/layer.h"

namespace dtrain {

class SoftmaxLayer : public Layer {
 public:
  SoftmaxLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Softmax"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::KernelChoice<kernels::UnaryKernel, kernels::SoftmaxProblem> kernel_;
};

}  // namespace dtrain
