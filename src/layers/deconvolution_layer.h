// Deconvolution: Caffe's "Deconvolution" layer (transposed convolution): the gradient of a
// Convolution with respect to its input, used as a forward pass, e.g. for learned upsampling.
//
//   bottom (N, C, H, W) -> top (N, num_output, H_out, W_out),
//   H_out = stride_h * (H - 1) + (dilation_h * (kernel_h - 1) + 1) - 2 * pad_h.
//
// Weights (C, num_output / group, kernel_h, kernel_w), as Caffe stores them; bias (num_output),
// added to the top. Parameters are ConvolutionParameter's (see BaseConvolutionLayer); a bilinear
// weight_filler with group == C == num_output gives a fixed bilinear upsampler. One
// implementation: the reference convolution's functions run backwards (kernels/reference/
// convolution.h), with the column buffer this layer owns.
#pragma once

#include <vector>

#include "layers/base_convolution_layer.h"

namespace dtrain {

class DeconvolutionLayer : public BaseConvolutionLayer {
 public:
  DeconvolutionLayer(const LayerParameter& p, const LayerContext& c) : BaseConvolutionLayer(p, c) {}
  const char* type() const override { return "Deconvolution"; }

 protected:
  bool reverse_dimensions() const override { return true; }
  int OutputSize(int in, int kernel, int pad, int stride, int dilation) const override;
  Status ReshapeKernel() override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  std::vector<float> col_buffer_;
};

}  // namespace dtrain
