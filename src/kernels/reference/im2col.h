// im2col / col2im: the lowering that turns a 2-D convolution into one matrix product.
//
// A Window2d describes a sliding window over the two spatial axes of one NCHW image: kernel
// extent, zero padding, stride and dilation per axis. Im2Col copies every window position of
// `src` (channels x height x width) into the column matrix `col`, laid out as
// (channels * kernel_h * kernel_w) rows by (out_h * out_w) columns, row-major; taps that fall into
// the padding read as 0. Col2Im is its adjoint: it sums every column entry back into the pixel it
// came from (padding taps are dropped). Caller-owned buffers, no allocation; stateless.
#pragma once

namespace dtrain::reference {

struct Window2d {
  int kernel_h = 1, kernel_w = 1;
  int pad_h = 0, pad_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;

  bool operator==(const Window2d& o) const {
    return kernel_h == o.kernel_h && kernel_w == o.kernel_w && pad_h == o.pad_h &&
           pad_w == o.pad_w && stride_h == o.stride_h && stride_w == o.stride_w &&
           dilation_h == o.dilation_h && dilation_w == o.dilation_w;
  }
  // Extent of the kernel once dilated: dilation * (kernel - 1) + 1.
  int DilatedKernelH() const { return dilation_h * (kernel_h - 1) + 1; }
  int DilatedKernelW() const { return dilation_w * (kernel_w - 1) + 1; }
  // A 1x1 window with unit stride and no padding: the column matrix is the image itself.
  bool IsPointwise() const {
    return kernel_h == 1 && kernel_w == 1 && pad_h == 0 && pad_w == 0 && stride_h == 1 &&
           stride_w == 1;
  }
};

// Number of window positions along one axis, as convolution counts them (rounding down):
// (in + 2 * pad - dilated_kernel) / stride + 1. Not positive when the kernel exceeds the padded
// input; callers check.
int ConvOutputSize(int in, int kernel, int pad, int stride, int dilation);

// src: channels x height x width. col: (channels * kernel_h * kernel_w) x (out_h * out_w),
// overwritten, where out_h/out_w are ConvOutputSize of the window.
void Im2Col(const float* src, int channels, int height, int width, const Window2d& window,
            float* col);

// The adjoint of Im2Col: dst (channels x height x width) is overwritten with the sum of every
// column entry that Im2Col would have read from each pixel.
void Col2Im(const float* col, int channels, int height, int width, const Window2d& window,
            float* dst);

}  // namespace dtrain::reference
