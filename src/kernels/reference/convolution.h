// Reference convolution over two or more spatial axes (kernels/convolution.h: cross-correlation
// with groups, padding, stride and dilation), computed image by image as im2col (the N-d one
// where the shape has leading axes) followed by one sgemm per group; the functions, and
// Convolution, which runs them as the op's last implementation.
//
//   src          (batch, in_channels, [leading...,] in_h, in_w)
//   weights      (out_channels, in_channels / groups, [leading...,] kernel_h, kernel_w)
//   bias         (out_channels)
//   dst          (batch, out_channels, [leading...,] out_h, out_w)
//
// All tensors are dense row-major float32 (NCHW, NCDHW, ...); diff_x has the shape of x. The caller
// owns every buffer, including the column scratch `col` of ColumnBufferSize(shape) floats, so a
// call allocates nothing. Forward and BackwardData overwrite their output; BackwardWeights and
// BiasBackward accumulate (+=) into theirs, as Caffe's parameter gradients do. The functions are
// stateless; Convolution owns its column buffer and is not thread-safe.
//
// Deconvolution is this operator run backwards: its forward is BackwardData, its backward-data
// is Forward, with src/dst swapped (see layers/deconvolution_layer.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/convolution.h"
#include "kernels/reference/im2col.h"

namespace dtrain::reference {

// Floats of column scratch one call needs (0 for a pointwise window, which needs none).
int64_t ColumnBufferSize(const kernels::ConvolutionShape& shape);
// Why the lowering of `shape` cannot run here, or OK: its column scratch larger than this
// machine's memory, or a dimension of its matrix products beyond the int a GEMM takes. Callers
// check it before allocating the scratch.
Status CheckLowering(const kernels::ConvolutionShape& shape);

// dst = conv(src, weights).
void ConvolutionForward(const kernels::ConvolutionShape& shape, const float* src,
                        const float* weights, float* dst, float* col);
// diff_src = conv^T(diff_dst, weights).
void ConvolutionBackwardData(const kernels::ConvolutionShape& shape, const float* diff_dst,
                             const float* weights, float* diff_src, float* col);
// diff_weights += d(sum diff_dst * dst) / d(weights).
void ConvolutionBackwardWeights(const kernels::ConvolutionShape& shape, const float* src,
                                const float* diff_dst, float* diff_weights, float* col);

// dst[n, c, s] += bias[c], for dst of shape (batch, channels, spatial).
void BiasForward(int batch, int channels, int spatial, const float* bias, float* dst);
// diff_bias[c] += sum over n, s of diff_dst[n, c, s].
void BiasBackward(int batch, int channels, int spatial, const float* diff_dst, float* diff_bias);

// The op's reference kernel: takes every problem whose lowering fits (CheckLowering).
class Convolution : public kernels::LinearKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::LinearKernel>> Create(
      const kernels::ConvolutionProblem& problem, const kernels::KernelRequest& request);

  void Forward(const float* src, const float* weights, const float* bias, float* dst) override;
  void Backward(const float* src, const float* diff_dst, const float* weights, float* diff_src,
                float* diff_weights, float* diff_bias) override;

 private:
  explicit Convolution(const kernels::ConvolutionShape& shape);

  kernels::ConvolutionShape shape_;
  std::vector<float> col_;
};

}  // namespace dtrain::reference
