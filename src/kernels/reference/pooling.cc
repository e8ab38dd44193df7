#include "kernels/reference/pooling.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace dtrain::reference {
namespace {

// One window along one axis: [start, end) clipped to the image, and the divisor's extent
// (clipped to the padded image instead).
struct Span {
  int start, end, padded_extent;
};

Span WindowSpan(int o, int in, int kernel, int pad, int stride) {
  int start = o * stride - pad;
  int end = std::min(start + kernel, in + pad);
  const int padded_extent = end - start;
  start = std::max(start, 0);
  end = std::min(end, in);
  return {start, end, padded_extent};
}

}  // namespace

int PooledSize(int in, int kernel, int pad, int stride, bool round_up, bool padded) {
  const float ratio = static_cast<float>(in + 2 * pad - kernel) / stride;
  int out = static_cast<int>(round_up ? std::ceil(ratio) : std::floor(ratio)) + 1;
  if (padded && (out - 1) * stride >= in + pad) --out;
  return out;
}

void MaxPoolForward(const PoolingShape& s, const float* src, float* dst, int* mask) {
  const Window2d& w = s.window;
  const int planes = s.batch * s.channels;
  for (int p = 0; p < planes; ++p) {
    for (int oh = 0; oh < s.out_h; ++oh) {
      const Span h = WindowSpan(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h);
      for (int ow = 0; ow < s.out_w; ++ow) {
        const Span x = WindowSpan(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w);
        float best = -FLT_MAX;
        int best_index = -1;
        for (int ih = h.start; ih < h.end; ++ih) {
          for (int iw = x.start; iw < x.end; ++iw) {
            const int index = ih * s.in_w + iw;
            if (src[index] > best) {
              best = src[index];
              best_index = index;
            }
          }
        }
        *dst++ = best;
        *mask++ = best_index;
      }
    }
    src += s.in_h * s.in_w;
  }
}

void MaxPoolBackward(const PoolingShape& s, const float* diff_dst, const int* mask,
                     float* diff_src) {
  const int planes = s.batch * s.channels;
  const int in_plane = s.in_h * s.in_w;
  const int out_plane = s.out_h * s.out_w;
  std::fill(diff_src, diff_src + static_cast<long>(planes) * in_plane, 0.f);
  for (int p = 0; p < planes; ++p) {
    for (int j = 0; j < out_plane; ++j) {
      if (mask[j] >= 0) diff_src[mask[j]] += diff_dst[j];
    }
    diff_src += in_plane;
    diff_dst += out_plane;
    mask += out_plane;
  }
}

void AvePoolForward(const PoolingShape& s, const float* src, float* dst) {
  const Window2d& w = s.window;
  const int planes = s.batch * s.channels;
  for (int p = 0; p < planes; ++p) {
    for (int oh = 0; oh < s.out_h; ++oh) {
      const Span h = WindowSpan(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h);
      for (int ow = 0; ow < s.out_w; ++ow) {
        const Span x = WindowSpan(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w);
        float sum = 0.f;
        for (int ih = h.start; ih < h.end; ++ih) {
          for (int iw = x.start; iw < x.end; ++iw) sum += src[ih * s.in_w + iw];
        }
        *dst++ = sum / static_cast<float>(h.padded_extent * x.padded_extent);
      }
    }
    src += s.in_h * s.in_w;
  }
}

void AvePoolBackward(const PoolingShape& s, const float* diff_dst, float* diff_src) {
  const Window2d& w = s.window;
  const int planes = s.batch * s.channels;
  const int in_plane = s.in_h * s.in_w;
  std::fill(diff_src, diff_src + static_cast<long>(planes) * in_plane, 0.f);
  for (int p = 0; p < planes; ++p) {
    for (int oh = 0; oh < s.out_h; ++oh) {
      const Span h = WindowSpan(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h);
      for (int ow = 0; ow < s.out_w; ++ow) {
        const Span x = WindowSpan(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w);
        const float g = *diff_dst++ / static_cast<float>(h.padded_extent * x.padded_extent);
        for (int ih = h.start; ih < h.end; ++ih) {
          for (int iw = x.start; iw < x.end; ++iw) diff_src[ih * s.in_w + iw] += g;
        }
      }
    }
    diff_src += in_plane;
  }
}

}  // namespace dtrain::reference
