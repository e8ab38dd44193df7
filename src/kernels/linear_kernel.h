// LinearKernel: the kernel interface of the ops with weights, Convolution and InnerProduct.
//
// src, weights, bias and dst are the caller's dense float32 buffers in the shapes of the op's
// problem (kernels/convolution.h, kernels/inner_product.h); diff_x has the shape of x. Forward and
// the data gradient overwrite their output; the weight and bias gradients accumulate (+=), as
// Caffe's parameter gradients do. Not thread-safe.
#pragma once

#include "kernels/kernel_list.h"

namespace dtrain::kernels {

class LinearKernel : public Kernel {
 public:
  // dst = op(src, weights) + bias; bias is null when the problem has none.
  virtual void Forward(const float* src, const float* weights, const float* bias, float* dst) = 0;
  // diff_src = op^T(diff_dst, weights); diff_weights += ...; diff_bias += .... Any of the three
  // outputs may be null to skip it.
  virtual void Backward(const float* src, const float* diff_dst, const float* weights,
                        float* diff_src, float* diff_weights, float* diff_bias) = 0;
};

}  // namespace dtrain::kernels
