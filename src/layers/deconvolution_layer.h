// Deconvolution: Caffe's "Deconvolution" layer (transposed convolution): the gradient of a
// Convolution with respect to its input, used as a forward pass, e.g. for learned upsampling,
// over one or more spatial axes (BaseConvolutionLayer; VNet's 3-D upsampling).
//
//   bottom (N, C, H, W) -> top (N, num_output, H_out, W_out), and likewise per spatial axis,
//   H_out = stride_h * (H - 1) + (dilation_h * (kernel_h - 1) + 1) - 2 * pad_h.
//
// Weights (C, num_output / group, kernel per spatial axis), as Caffe stores them; bias
// (num_output), added to the top. Parameters are ConvolutionParameter's (see BaseConvolutionLayer);
// a bilinear weight_filler with group == C == num_output gives a fixed bilinear upsampler. Computed
// by the Convolution op's kernel (kernels/convolution.h, chosen per problem from its list: oneDNN
// over 1, 2 or 3 spatial axes, the reference over any) run backwards: this layer's forward is the
// kernel's backward-data, its data gradient the kernel's forward, its weight gradient the
// kernel's weight gradient with src and diff_dst swapped; the bias (on the top) is added here.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/convolution.h"
#include "layers/base_convolution_layer.h"

namespace dtrain {

class DeconvolutionLayer : public BaseConvolutionLayer {
 public:
  DeconvolutionLayer(const LayerParameter& p, const LayerContext& c) : BaseConvolutionLayer(p, c) {}
  const char* type() const override { return "Deconvolution"; }

 protected:
  bool reverse_dimensions() const override { return true; }
  int64_t OutputSize(const kernels::SpatialAxis& a, int in) const override;
  Status ReshapeKernel() override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::KernelChoice<kernels::LinearKernel, kernels::ConvolutionProblem> kernel_;
};

}  // namespace dtrain
