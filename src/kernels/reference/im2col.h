// im2col / col2im: the lowering that turns a 2-D convolution into one matrix product.
//
// The window is a kernels::Window2d (kernels/window.h). Im2Col copies every window position of
// `src` (channels x height x width) into the column matrix `col`, laid out as
// (channels * kernel_h * kernel_w) rows by (out_h * out_w) columns, row-major; taps that fall into
// the padding read as 0. Col2Im is its adjoint: it sums every column entry back into the pixel it
// came from (padding taps are dropped). Caller-owned buffers, no allocation; stateless.
#pragma once

#include "kernels/window.h"

namespace dtrain::reference {

// src: channels x height x width. col: (channels * kernel_h * kernel_w) x (out_h * out_w),
// overwritten, where out_h/out_w are ConvOutputSize of the window.
void Im2Col(const float* src, int channels, int height, int width, const kernels::Window2d& window,
            float* col);

// The adjoint of Im2Col: dst (channels x height x width) is overwritten with the sum of every
// column entry that Im2Col would have read from each pixel.
void Col2Im(const float* col, int channels, int height, int width, const kernels::Window2d& window,
            float* dst);

}  // namespace dtrain::reference
