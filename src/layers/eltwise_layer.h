// EltwiseLayer: combines two or more same-shaped bottoms element by element.
//
// Bottoms: >= 2, all of one shape; one top of that shape. eltwise_param.operation:
//   SUM (default)  y = sum_i coeff_i * x_i, one coeff per bottom (default all 1).
//   PROD           y = prod_i x_i. The gradient is the product of the other bottoms when
//                  stable_prod_grad (default), else y / x_i (faster, unsafe near 0).
//   MAX            y = max_i x_i. The winning bottom is kept per element (the first with the
//                  largest value, except that a tie between bottoms 0 and 1 goes to 1, as in
//                  Caffe) and the gradient flows to it alone.
// Implementations, in order: oneDNN (SUM only; kernels/onednn/eltwise_sum.h), then plain loops.
#pragma once

#include "kernels/onednn/eltwise_sum.h"
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
  int op_ = 1;                  // EltwiseParameter::EltwiseOp
  std::vector<float> coeffs_;   // SUM: one per bottom
  std::vector<int> max_index_;  // MAX: winning bottom per element
  onednn::EltwiseSumProblem problem_;
  KernelChoice<onednn::EltwiseSum, onednn::EltwiseSumProblem> kernel_;
  std::vector<const float*> sources_;  // bottom data pointers, for the oneDNN kernel
};

}  // namespace dtrain
