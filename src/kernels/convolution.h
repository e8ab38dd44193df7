// Convolution, the op: a 2-D cross-correlation (as in Caffe and oneDNN) with groups, padding,
// stride and dilation, its problem and its implementation list.
//
//   src      (batch, in_channels, in_h, in_w)
//   weights  (out_channels, in_channels / groups, kernel_h, kernel_w)
//   bias     (out_channels)
//   dst      (batch, out_channels, out_h, out_w)
//
// The kernel is a LinearKernel (kernels/linear_kernel.h). Implementations, in order: oneDNN
// (kernels/onednn/convolution.h), the reference im2col + sgemm (kernels/reference/convolution.h).
#pragma once

#include <memory>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/linear_kernel.h"
#include "kernels/window.h"

namespace dtrain::kernels {

struct ConvolutionShape {
  int batch = 1;
  int in_channels = 1, in_h = 1, in_w = 1;
  int out_channels = 1, out_h = 1, out_w = 1;
  int groups = 1;
  Window2d window;

  bool operator==(const ConvolutionShape& o) const {
    return batch == o.batch && in_channels == o.in_channels && in_h == o.in_h && in_w == o.in_w &&
           out_channels == o.out_channels && out_h == o.out_h && out_w == o.out_w &&
           groups == o.groups && window == o.window;
  }
  bool operator!=(const ConvolutionShape& o) const { return !(*this == o); }
  // Multiply-adds of one forward pass.
  double Macs() const {
    return static_cast<double>(batch) * out_channels * out_h * out_w * (in_channels / groups) *
           window.kernel_h * window.kernel_w;
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
