// BaseConvolutionLayer: what Convolution and Deconvolution share (Caffe's BaseConvolutionLayer):
// reading and validating ConvolutionParameter, creating or checking the learnable blobs, shaping
// and tops.
//
// Parameters: num_output, bias_term, kernel_size / pad / stride (once, or once per spatial axis)
// or their kernel_h/_w, pad_h/_w, stride_h/_w forms, dilation (once or per axis), group,
// weight_filler, bias_filler, axis (must be the channel axis 1; inputs are 4-D NCHW).
// Several bottoms may be given (all of one shape); top i is bottom i convolved with the same
// weights. blobs_[0] is the weights, blobs_[1] the bias (num_output) when bias_term.
//
// The kernel problem `conv_` is stated from the convolution's point of view: for Convolution its
// src is the bottom and its dst the top; Deconvolution sets reverse_dimensions() and runs the
// same problem from top (src) to bottom (dst), so its weights are (C_in, num_output / group,
// kh, kw). Not thread-safe.
#pragma once

#include <vector>

#include "kernels/convolution.h"
#include "layers/layer.h"

namespace dtrain {

// Reads the window fields of `p` (kernel, stride, pad, dilation, in their single, per-axis and
// _h/_w forms) into `window`; an error names the field. Shared with Im2col.
Status ReadConvolutionWindow(const ConvolutionParameter& p, kernels::Window2d* window);

class BaseConvolutionLayer : public Layer {
 public:
  using Layer::Layer;

  int MinBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }
  bool EqualNumBottomTopBlobs() const override { return true; }

  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  double ForwardMacs() const override { return conv_.Macs() * num_bottoms_; }

  // The geometry as read and checked at setup (for exporters: onnx/).
  const kernels::Window2d& window() const { return window_; }
  int group() const { return group_; }
  bool bias_term() const { return bias_term_; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;

  // True for Deconvolution: the kernel problem runs from top to bottom.
  virtual bool reverse_dimensions() const = 0;
  // Spatial size of the top along one axis, from the bottom's size along it.
  virtual int OutputSize(int in, int kernel, int pad, int stride, int dilation) const = 0;
  // Prepares the kernel for conv_ (just set by Reshape).
  virtual Status ReshapeKernel() = 0;

  int num_output_ = 0;
  int group_ = 1;
  int channels_ = 0;  // of the bottom
  bool bias_term_ = true;
  kernels::Window2d window_;
  kernels::ConvolutionShape conv_;
  int num_bottoms_ = 1;

 private:
  Status ReadWindow();
  Status SetUpBlob(int index, const std::vector<int>& shape, const FillerParameter& filler,
                   const char* what);
};

}  // namespace dtrain
