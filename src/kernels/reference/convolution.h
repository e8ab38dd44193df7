// Reference 2-D convolution (cross-correlation, as in Caffe and oneDNN), with groups, padding,
// stride and dilation, computed image by image as im2col followed by one sgemm per group.
//
//   src          (batch, in_channels, in_h, in_w)
//   weights      (out_channels, in_channels / groups, kernel_h, kernel_w)
//   bias         (out_channels)
//   dst          (batch, out_channels, out_h, out_w)
//
// All tensors are dense NCHW float32; diff_x has the shape of x. The caller owns every buffer,
// including the column scratch `col` of ColumnBufferSize(shape) floats, so a call allocates
// nothing. Forward and BackwardData overwrite their output; BackwardWeights and BiasBackward
// accumulate (+=) into theirs, as Caffe's parameter gradients do. Stateless.
//
// Deconvolution is this operator run backwards: its forward is BackwardData, its backward-data
// is Forward, with src/dst swapped (see layers/deconvolution_layer.h).
#pragma once

#include <cstdint>

#include "kernels/reference/im2col.h"

namespace dtrain::reference {

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

// Floats of column scratch one call needs (0 for a pointwise window, which needs none).
int64_t ColumnBufferSize(const ConvolutionShape& shape);

// dst = conv(src, weights).
void ConvolutionForward(const ConvolutionShape& shape, const float* src, const float* weights,
                        float* dst, float* col);
// diff_src = conv^T(diff_dst, weights).
void ConvolutionBackwardData(const ConvolutionShape& shape, const float* diff_dst,
                             const float* weights, float* diff_src, float* col);
// diff_weights += d(sum diff_dst * dst) / d(weights).
void ConvolutionBackwardWeights(const ConvolutionShape& shape, const float* src,
                                const float* diff_dst, float* diff_weights, float* col);

// dst[n, c, s] += bias[c], for dst of shape (batch, channels, spatial).
void BiasForward(int batch, int channels, int spatial, const float* bias, float* dst);
// diff_bias[c] += sum over n, s of diff_dst[n, c, s].
void BiasBackward(int batch, int channels, int spatial, const float* diff_dst, float* diff_bias);

}  // namespace dtrain::reference
