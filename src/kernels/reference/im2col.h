// im2col / col2im: the lowering that turns a convolution into one matrix product, over two
// spatial axes (Im2Col, Col2Im) or any number of them (Im2ColNd, Col2ImNd).
//
// The window is a kernels::Window2d (kernels/window.h). Im2Col copies every window position of
// `src` (channels x height x width) into the column matrix `col`, laid out as
// (channels * kernel_h * kernel_w) rows by (out_h * out_w) columns, row-major; taps that fall into
// the padding read as 0. Col2Im is its adjoint: it sums every column entry back into the pixel it
// came from (padding taps are dropped). The N-d pair does the same over the spatial axes
// `axes[0..num_axes)`, outermost first (kernels::SpatialAxis: sizes and window per axis, `out`
// being ConvOutputSize of the axis): col has (channels * product of the kernels) rows, ordered
// by channel, then tap along axis 0, ..., along the last axis, by (product of the outs) columns
// in row-major order of the positions; 1 <= num_axes <= kernels::kMaxSpatialAxes. Caller-owned
// buffers, no allocation; stateless.
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

void Im2ColNd(const float* src, int channels, const kernels::SpatialAxis* axes, int num_axes,
              float* col);
void Col2ImNd(const float* col, int channels, const kernels::SpatialAxis* axes, int num_axes,
              float* dst);

}  // namespace dtrain::reference
