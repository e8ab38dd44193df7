// Convolution: Caffe's "Convolution" layer, a 2-D cross-correlation with learned filters.
//
//   bottom (N, C, H, W) -> top (N, num_output, H_out, W_out),
//   H_out = (H + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1 (rounded down).
//
// Weights (num_output, C / group, kernel_h, kernel_w), bias (num_output). Channels are split
// into `group` independent groups. Parameters as in BaseConvolutionLayer. Computed by the
// Convolution op's kernel (kernels/convolution.h), chosen per problem from its list.
#pragma once

#include "kernels/convolution.h"
#include "layers/base_convolution_layer.h"

namespace dtrain {

class ConvolutionLayer : public BaseConvolutionLayer {
 public:
  ConvolutionLayer(const LayerParameter& p, const LayerContext& c) : BaseConvolutionLayer(p, c) {}
  const char* type() const override { return "Convolution"; }

 protected:
  bool reverse_dimensions() const override { return false; }
  int OutputSize(int in, int kernel, int pad, int stride, int dilation) const override;
  Status ReshapeKernel() override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::KernelChoice<kernels::LinearKernel, kernels::ConvolutionProblem> kernel_;
};

}  // namespace dtrain
