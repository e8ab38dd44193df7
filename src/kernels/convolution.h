// Convolution, the op: a cross-correlation (as in Caffe and oneDNN) over two or more spatial
// axes, with groups, padding, stride and dilation per axis, its problem and its implementation
// list.
//
//   src      (batch, in_channels, [leading in...,] in_h, in_w)
//   weights  (out_channels, in_channels / groups, [leading kernel...,] kernel_h, kernel_w)
//   bias     (out_channels)
//   dst      (batch, out_channels, [leading out...,] out_h, out_w)
//
// A 2-D problem has no leading axes; a 3-D one (VNet's volumes) has one, the depth; any number
// may be given. A convolution over one spatial axis is a 2-D problem with in_h = out_h = 1 and
// a 1-high window (the layer states it so), which every implementation computes as it is.
//
// The kernel is a LinearKernel (kernels/linear_kernel.h). Implementations, in order: oneDNN
// (kernels/onednn/convolution.h), the reference im2col + sgemm (kernels/reference/convolution.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel_list.h"
#include "kernels/linear_kernel.h"
#include "kernels/window.h"

namespace dtrain::kernels {

struct ConvolutionShape {
  int batch = 1;
  int in_channels = 1, in_h = 1, in_w = 1;
  int out_channels = 1, out_h = 1, out_w = 1;
  int groups = 1;
  Window2d window;  // over H and W
  // The spatial axes before H and W, outermost first: empty for 2-D, the depth for 3-D.
  std::vector<SpatialAxis> leading;

  bool operator==(const ConvolutionShape& o) const {
    return batch == o.batch && in_channels == o.in_channels && in_h == o.in_h && in_w == o.in_w &&
           out_channels == o.out_channels && out_h == o.out_h && out_w == o.out_w &&
           groups == o.groups && window == o.window && leading == o.leading;
  }
  bool operator!=(const ConvolutionShape& o) const { return !(*this == o); }

  // Spatial axes: 2 + leading.size().
  int spatial_axes() const { return 2 + static_cast<int>(leading.size()); }
  // Spatial axis i, 0 <= i < spatial_axes(), outermost first (H and W are the last two).
  SpatialAxis axis(int i) const;
  // Values per channel of one image of src and of dst, and taps of one filter per channel.
  int64_t InPixels() const;
  int64_t OutPixels() const;
  int64_t KernelTaps() const;
  // A window of one tap per axis with unit stride and no padding: the column matrix of the
  // lowering is the image itself.
  bool IsPointwise() const;
  // Multiply-adds of one forward pass.
  double Macs() const {
    return static_cast<double>(batch) * out_channels * OutPixels() * (in_channels / groups) *
           KernelTaps();
  }
};

struct ConvolutionProblem {
  ConvolutionShape shape;
  bool bias = true;
  bool operator==(const ConvolutionProblem& o) const { return shape == o.shape && bias == o.bias; }
};

StatusOr<std::unique_ptr<LinearKernel>> ChooseKernel(const ConvolutionProblem& problem,
                                                     const KernelRequest& request,
                                                     std::string* report);

}  // namespace dtrain::kernels
