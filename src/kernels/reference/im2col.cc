#include "kernels/reference/im2col.h"

#include <algorithm>

namespace dtrain::reference {

void Im2Col(const float* src, int channels, int height, int width, const kernels::Window2d& w,
            float* col) {
  const int out_h = kernels::ConvOutputSize(height, w.kernel_h, w.pad_h, w.stride_h, w.dilation_h);
  const int out_w = kernels::ConvOutputSize(width, w.kernel_w, w.pad_w, w.stride_w, w.dilation_w);
  for (int c = 0; c < channels; ++c, src += height * width) {
    for (int kh = 0; kh < w.kernel_h; ++kh) {
      for (int kw = 0; kw < w.kernel_w; ++kw) {
        // One row of col: this tap's input pixel for every output position.
        for (int oh = 0; oh < out_h; ++oh) {
          const int ih = oh * w.stride_h - w.pad_h + kh * w.dilation_h;
          if (ih < 0 || ih >= height) {
            std::fill(col, col + out_w, 0.f);
            col += out_w;
            continue;
          }
          for (int ow = 0; ow < out_w; ++ow) {
            const int iw = ow * w.stride_w - w.pad_w + kw * w.dilation_w;
            *col++ = (iw >= 0 && iw < width) ? src[ih * width + iw] : 0.f;
          }
        }
      }
    }
  }
}

void Col2Im(const float* col, int channels, int height, int width, const kernels::Window2d& w,
            float* dst) {
  const int out_h = kernels::ConvOutputSize(height, w.kernel_h, w.pad_h, w.stride_h, w.dilation_h);
  const int out_w = kernels::ConvOutputSize(width, w.kernel_w, w.pad_w, w.stride_w, w.dilation_w);
  std::fill(dst, dst + static_cast<long>(channels) * height * width, 0.f);
  for (int c = 0; c < channels; ++c, dst += height * width) {
    for (int kh = 0; kh < w.kernel_h; ++kh) {
      for (int kw = 0; kw < w.kernel_w; ++kw) {
        for (int oh = 0; oh < out_h; ++oh) {
          const int ih = oh * w.stride_h - w.pad_h + kh * w.dilation_h;
          if (ih < 0 || ih >= height) {
            col += out_w;
            continue;
          }
          for (int ow = 0; ow < out_w; ++ow, ++col) {
            const int iw = ow * w.stride_w - w.pad_w + kw * w.dilation_w;
            if (iw >= 0 && iw < width) dst[ih * width + iw] += *col;
          }
        }
      }
    }
  }
}

}  // namespace dtrain::reference
