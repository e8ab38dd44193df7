// EltwiseLayer: combines two or more same-shaped bottoms element by element.
//
// Bottoms: >= 2, all of one shape; one top of that shape. eltwise_param.operation:
//   SUM (default)  y = sum_i coeff_i * x_i, one coeff per bottom (default all 1).
//   PROD           y = prod_i x_i. The gradient is the product of the other bottoms when
//                  stable_prod_grad (default), else y / x_i (faster, unsafe near 0).
//   MAX            y = max_i x_i. The winning bottom is kept per element (the first with the
//                  largest value, except that a tie between bottoms 0 and 1 goes to 1, as in
//                  Caffe) and the gradient flows to it alone.
// Computed by the Eltwise op's kernel (kernels/eltwise.h).
#pragma once

#include <vector>

#include "kernels/eltwise.h"
#include "layers/layer.h"

namespace dtrain {

class EltwiseLayer : public Layer {
 public:
  EltwiseLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Eltwise"; }
  int MinBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::EltwiseProblem problem_;  // operation and coefficients set up once; count per Reshape
  kernels::KernelChoice<kernels::JoinKernel, kernels::EltwiseProblem> kernel_;
  std::vector<const float*> sources_;  // bottom data pointers
  LayoutPtr layout_;                   // the forward pass's (ElementwiseLayout), for backward
};

}  // namespace dtrain
