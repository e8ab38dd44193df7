#include "kernels/reference/im2col.h"

#include <algorithm>
#include <cstdint>

namespace dtrain::reference {
namespace {

using kernels::SpatialAxis;

// Steps the odometer `digits` over axes [0, n) to its next value, each digit running below the
// axis's `limit` field, the last axis fastest; false once it wraps around to all zeros.
bool Next(int* digits, const SpatialAxis* axes, int n, int SpatialAxis::*limit) {
  for (int d = n - 1; d >= 0; --d) {
    if (++digits[d] < axes[d].*limit) return true;
    digits[d] = 0;
  }
  return false;
}

// Calls row(col_offset, base, first) once per row segment of the N-d column matrix that runs
// along the last axis: col_offset is where its axes[n - 1].out entries start in col; entry o
// reads the input value at base + first + o * stride of the last axis when that index lies in
// [0, in) of the last axis, else a zero of the padding; base is -1 where the other axes' indices
// fall into the padding (every entry zero).
template <typename Row>
void ForEachRow(int channels, const SpatialAxis* axes, int n, Row row) {
  const SpatialAxis& last = axes[n - 1];
  int64_t image = 1;
  for (int d = 0; d < n; ++d) image *= axes[d].in;
  int tap[kernels::kMaxSpatialAxes] = {};
  int pos[kernels::kMaxSpatialAxes] = {};
  int64_t col = 0;
  for (int c = 0; c < channels; ++c) {
    do {
      do {
        int64_t base = 0;
        bool inside = true;
        for (int d = 0; d < n - 1; ++d) {
          const SpatialAxis& a = axes[d];
          const int i = pos[d] * a.stride - a.pad + tap[d] * a.dilation;
          inside = inside && i >= 0 && i < a.in;
          base = base * a.in + i;
        }
        row(col, inside ? c * image + base * last.in : -1, tap[n - 1] * last.dilation - last.pad);
        col += last.out;
      } while (Next(pos, axes, n - 1, &SpatialAxis::out));
    } while (Next(tap, axes, n, &SpatialAxis::kernel));
  }
}

}  // namespace

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

void Im2ColNd(const float* src, int channels, const SpatialAxis* axes, int num_axes, float* col) {
  const SpatialAxis& last = axes[num_axes - 1];
  ForEachRow(channels, axes, num_axes, [&](int64_t offset, int64_t base, int first) {
    float* out = col + offset;
    if (base < 0) {
      std::fill(out, out + last.out, 0.f);
      return;
    }
    for (int o = 0; o < last.out; ++o) {
      const int i = first + o * last.stride;
      out[o] = (i >= 0 && i < last.in) ? src[base + i] : 0.f;
    }
  });
}

void Col2ImNd(const float* col, int channels, const SpatialAxis* axes, int num_axes, float* dst) {
  int64_t count = channels;
  for (int d = 0; d < num_axes; ++d) count *= axes[d].in;
  std::fill(dst, dst + count, 0.f);
  const SpatialAxis& last = axes[num_axes - 1];
  ForEachRow(channels, axes, num_axes, [&](int64_t offset, int64_t base, int first) {
    if (base < 0) return;
    const float* in = col + offset;
    for (int o = 0; o < last.out; ++o) {
      const int i = first + o * last.stride;
      if (i >= 0 && i < last.in) dst[base + i] += in[o];
    }
  });
}

}  // namespace dtrain::reference
