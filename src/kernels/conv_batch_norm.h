// ConvBatchNorm, the op: a 1x1 convolution (stride 1, no padding, one group, no bias) whose output
// goes straight into batch normalisation with the batch's statistics, a per-channel scale and
// shift and optionally a ReLU: what Caffe model files write as Convolution + BatchNorm + Scale
// (+ ReLU) in place, which the Convolution layer then absorbs (layers/convolution_layer.h).
//
//   y = W x (at every pixel), dst = relu(scale_c * (y_c - mean_c) / sqrt(var_c + eps) + shift_c)
//
// mean_c and var_c over the batch and the pixels, var biased. Backward gives what the separate
// layers give: diff_src, diff_weights (added, as Caffe accumulates), diff_scale and diff_shift
// (written).
//
// Implementations: oneDNN (kernels/onednn/folded_conv_batch_norm.h) only. A fusion has no
// reference entry: where the list declines, the layers stay separate and run as they would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/kernel_list.h"

namespace dtrain::kernels {

struct ConvBatchNormProblem {
  int64_t batch = 1, in_channels = 1, out_channels = 1, height = 1, width = 1;
  float eps = 1e-5f;
  bool relu = false;
  bool operator==(const ConvBatchNormProblem& o) const {
    return batch == o.batch && in_channels == o.in_channels && out_channels == o.out_channels &&
           height == o.height && width == o.width && eps == o.eps && relu == o.relu;
  }
};

class ConvBatchNormKernel : public Kernel {
 public:
  // weights: out_channels x in_channels, plain; scale and shift: out_channels floats each. mean
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
