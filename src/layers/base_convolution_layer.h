// BaseConvolutionLayer: what Convolution and Deconvolution share (Caffe's BaseConvolutionLayer):
// reading and validating ConvolutionParameter, creating or checking the learnable blobs, shaping
// and tops.
//
// Axes, as BVLC Caffe (and Intel Caffe) read them: `axis` (default 1, negative counts from the
// end) is the channel axis; the axes before it are the batch (their sizes multiply), every axis
// after it is a spatial axis, so a (N, C, H, W) bottom is 2-D, (N, C, D, H, W) 3-D (VNet's
// volumes) and (N, C, L) 1-D; at least one and at most kernels::kMaxSpatialAxes spatial axes.
//
// Parameters: num_output, bias_term, kernel_size / pad / stride / dilation (each given once for
// every spatial axis, or once per spatial axis, outermost first; pad, stride and dilation may
// be left out: 0, 1, 1), or for 2-D only the kernel_h/_w, pad_h/_w, stride_h/_w forms, group,
// weight_filler, bias_filler; force_nd_im2col only picks Caffe's im2col routine, and changes
// nothing here. Several bottoms may be given (all of one shape); top i is bottom i convolved
// with the same weights. blobs_[0] is the weights, (conv out channels, conv in channels / group,
// kernel per spatial axis...), blobs_[1] the bias (num_output) when bias_term.
//
// The kernel problem `conv_` is stated from the convolution's point of view: for Convolution its
// src is the bottom and its dst the top; Deconvolution sets reverse_dimensions() and runs the
// same problem from top (src) to bottom (dst), so its weights are (C_in, num_output / group,
// kernel...). Over two or more spatial axes the last two are the problem's H and W and the rest
// its leading axes; over one, the problem is 2-D with a unit H axis (a 1-high window). Not
// thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/convolution.h"
#include "layers/layer.h"

namespace dtrain {

class ConvolutionParameter;  // proto/layer_params.pb.h
class FillerParameter;       // proto/filler.pb.h

// Reads the window fields of `p` (kernel, stride, pad, dilation, in their single, per-axis and
// _h/_w forms) for a convolution over `spatial_axes` axes into `axes` (their kernel, pad, stride
// and dilation; in and out are 1); an error names the field.
Status ReadConvolutionAxes(const ConvolutionParameter& p, int spatial_axes,
                           std::vector<kernels::SpatialAxis>* axes);
// The same over two spatial axes, as a Window2d. For Im2col.
Status ReadConvolutionWindow(const ConvolutionParameter& p, kernels::Window2d* window);

class BaseConvolutionLayer : public Layer {
 public:
  using Layer::Layer;

  int MinBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }
  bool EqualNumBottomTopBlobs() const override { return true; }

  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  double ForwardMacs() const override { return conv_.Macs() * num_bottoms_; }

  // The geometry as read and checked at setup (for exporters: onnx/): the channel axis, and per
  // spatial axis, outermost first, its window (kernel, pad, stride, dilation).
  int channel_axis() const { return channel_axis_; }
  const std::vector<kernels::SpatialAxis>& axes() const { return axes_; }
  // The window over the last two spatial axes (over one, a unit H axis and that one).
  const kernels::Window2d& window() const { return window_; }
  int group() const { return group_; }
  bool bias_term() const { return bias_term_; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;

  // True for Deconvolution: the kernel problem runs from top to bottom.
  virtual bool reverse_dimensions() const = 0;
  // Size of the top along spatial axis `a`, from the bottom's size `in` along it (in int64: a
  // Deconvolution's may pass an int, which Reshape refuses).
  virtual int64_t OutputSize(const kernels::SpatialAxis& a, int in) const = 0;
  // Prepares the kernel for conv_ (just set by Reshape).
  virtual Status ReshapeKernel() = 0;

  int num_output_ = 0;
  int group_ = 1;
  int channels_ = 0;  // of the bottom
  bool bias_term_ = true;
  int channel_axis_ = 1;
  std::vector<kernels::SpatialAxis> axes_;
  kernels::Window2d window_;
  kernels::ConvolutionShape conv_;
  int num_bottoms_ = 1;

 private:
  Status SetUpBlob(int index, const std::vector<int>& shape, const FillerParameter& filler,
                   const char* what);
  // States conv_ (all but its batch) from axes_, as Reshape just sized them.
  void StateProblem();
};

}  // namespace dtrain
