// Convolution: Caffe's "Convolution" layer, a cross-correlation with learned filters over one or
// more spatial axes (BaseConvolutionLayer: 2-D images, 3-D volumes, 1-D sequences).
//
//   bottom (N, C, H, W) -> top (N, num_output, H_out, W_out), and likewise per spatial axis,
//   H_out = (H + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1 (rounded down).
//
// Weights (num_output, C / group, kernel per spatial axis), bias (num_output). Channels are
// split into `group` independent groups. Parameters as in BaseConvolutionLayer. Computed by the
// Convolution op's kernel (kernels/convolution.h), chosen per problem from its list.
//
// Fusion (Layer::Absorb): a 2-D convolution (NCHW) without bias and with one bottom takes over a
// BatchNorm with batch statistics running in place on its top right after it, and then the Scale
// and ReLU that BatchNorm would take (layers/absorbed_scale_relu.h), computing them in the
// ConvBatchNorm op (kernels/conv_batch_norm.h), where one of its kernels fits and was measured
// faster than the separate layers (AMD EPYC, 2 threads, MobileNet v2 at batch 32):
// - a 1x1 convolution (stride 1, no padding, one group) that widens enough folds the
//   normalisation into itself. "Enough": in_channels^2 <= 8 x num_output, where the op's extra
//   in x in work per pixel cost less than the passes over the wide output it saves (MobileNet v2's
//   expansions of 16, 24 and 32 channels sixfold: 1.2-1.6x faster with their BatchNorm; 64
//   channels sixfold ran even, 96 and 160 slower, as would ResNet's 64 -> 256);
// - a depthwise convolution (one filter per channel, 3x3 or 5x5) at stride 1, or with at least
//   3136 (56 x 56) output pixels, computes the normalisation in its own passes (MobileNet v2's
//   depthwise layers with their BatchNorm: 10-15% faster; strided and smaller, the kernel's
//   backward pass ran slower than oneDNN's depthwise kernel with the separate BatchNorm).
// The BatchNorm keeps its running statistics, the Scale its blobs. Where the op's list declines
// (engine REFERENCE, fewer than 8 channels, other windows), nothing is absorbed and the BatchNorm
// takes its Scale and ReLU itself.
#pragma once

#include <vector>

#include "kernels/conv_batch_norm.h"
#include "kernels/convolution.h"
#include "layers/absorbed_scale_relu.h"
#include "layers/base_convolution_layer.h"

namespace dtrain {

class ConvolutionLayer : public BaseConvolutionLayer {
 public:
  ConvolutionLayer(const LayerParameter& p, const LayerContext& c) : BaseConvolutionLayer(p, c) {}
  const char* type() const override { return "Convolution"; }
  bool Absorb(Layer& next) override;

 protected:
  bool reverse_dimensions() const override { return false; }
  int64_t OutputSize(const kernels::SpatialAxis& a, int in) const override;
  Status ReshapeKernel() override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::KernelChoice<kernels::LinearKernel, kernels::ConvolutionProblem> kernel_;

  // The absorbed BatchNorm (null if none) with what it absorbed, and the folded kernel.
  class BatchNormLayer* batch_norm_ = nullptr;
  AbsorbedScaleRelu absorbed_;
  kernels::KernelChoice<kernels::ConvBatchNormKernel, kernels::ConvBatchNormProblem> folded_;
  std::vector<float> mean_, variance_;  // the batch's, for the BatchNorm's running statistics
  kernels::ConvBatchNormProblem FoldedProblem() const;
  bool AbsorbBatchNorm(Layer& next);
  Status FoldedForward(const Tensor& bottom, Tensor* top);
  void FoldedBackward(Tensor* top, bool propagate_down, Tensor* bottom);
};

}  // namespace dtrain
