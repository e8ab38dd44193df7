// ConvBatchNorm, the op: a convolution without bias whose output goes straight into batch
// normalisation with the batch's statistics, a per-channel scale and shift and optionally a
// ReLU: what Caffe model files write as Convolution + BatchNorm + Scale (+ ReLU) in place, which
// the Convolution layer then absorbs (layers/convolution_layer.h).
//
//   y = conv(x, W), dst = relu(scale_c * (y_c - mean_c) / sqrt(var_c + eps) + shift_c)
//
// mean_c and var_c over the batch and the pixels, var biased. Backward gives what the separate
// layers give: diff_src, diff_weights (added, as Caffe accumulates), diff_scale and diff_shift
// (written).
//
// Implementations, in order, each for its own kind of convolution: a 1x1 convolution with the
// normalisation folded into it (kernels/onednn/folded_conv_batch_norm.h), a depthwise one with the
// normalisation computed in its passes (dtrain's blocked loops,
// kernels/blocked/depthwise_conv_batch_norm.h), both on oneDNN's blocked layout and serving the
// ONEDNN engine. A fusion has no reference entry: where the list declines, the layers
// stay separate and run as they would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/convolution.h"
#include "kernels/kernel_list.h"

namespace dtrain::kernels {

struct ConvBatchNormProblem {
  ConvolutionShape shape;
  float eps = 1e-5f;
  bool relu = false;
  bool operator==(const ConvBatchNormProblem& o) const {
    return shape == o.shape && eps == o.eps && relu == o.relu;
  }
};

class ConvBatchNormKernel : public Kernel {
 public:
  // weights: plain, as the Convolution op's (out_channels, in_channels / groups, kernel_h,
  // kernel_w); scale and shift: out_channels floats each. mean
  // and variance (out_channels floats each) receive the batch's statistics of y.
  virtual void Forward(const float* src, const float* weights, const float* scale,
                       const float* shift, float* dst, float* mean, float* variance) = 0;
  // After the forward pass of the same batch, with src and dst holding what it read and wrote.
  // diff_dst is the kernel's to overwrite (the in-place blob's diff, which nothing reads after
  // this pass). diff_src (written) and diff_weights (added to) may be null to skip them.
  virtual void Backward(const float* src, const float* dst, float* diff_dst, const float* weights,
                        const float* scale, float* diff_src, float* diff_weights, float* diff_scale,
                        float* diff_shift) = 0;
};

StatusOr<std::unique_ptr<ConvBatchNormKernel>> ChooseKernel(const ConvBatchNormProblem& problem,
                                                            const KernelRequest& request,
                                                            std::string* report);

}  // namespace dtrain::kernels
