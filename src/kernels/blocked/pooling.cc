#include "kernels/blocked/pooling.h"

#include <algorithm>
#include <cfloat>
#include <cstring>

#include "kernels/blocked/channel_lanes.h"
#include "kernels/onednn/blocked_layout.h"

namespace dtrain::blocked {
namespace {

using kernels::PoolSpan;

// A window's tap index per channel (the comparison's result type, 32-bit lanes), and its
// one-byte form as stored between the passes.
template <int B>
using Taps = decltype(Vec<B>{} < Vec<B>{});
template <int B>
struct TapBytes {
  typedef uint8_t V __attribute__((vector_size(B)));
};

// No tap chosen (every value was NaN or -FLT_MAX, as the reference leaves its mask at -1).
constexpr int kNoTap = 255;

template <int B>
inline Vec<B> Splat(float value) {
  return Vec<B>{} + value;
}
template <int B>
inline Taps<B> SplatTap(int tap) {
  return Taps<B>{} + tap;
}

template <int B>
inline void StoreTaps(uint8_t* to, Taps<B> taps) {
  const typename TapBytes<B>::V bytes = __builtin_convertvector(taps, typename TapBytes<B>::V);
  std::memcpy(to, &bytes, B);
}
template <int B>
inline Taps<B> LoadTaps(const uint8_t* from) {
  typename TapBytes<B>::V bytes;
  std::memcpy(&bytes, from, B);
  return __builtin_convertvector(bytes, Taps<B>);
}

// Whether the windows along one axis are disjoint and together cover [0, in).
bool Tiles(const std::vector<PoolSpan>& spans, int in) {
  int next = 0;
  for (const PoolSpan& span : spans) {
    if (span.start != next) return false;
    next = span.end;
  }
  return next == in;
}

}  // namespace

StatusOr<std::unique_ptr<kernels::PoolingKernel>> Pooling::Create(
    const kernels::PoolingProblem& problem, const kernels::KernelRequest&) {
  const kernels::PoolingShape& s = problem.shape;
  if (problem.method == kernels::PoolMethod::kStochastic) return Unsupported("STOCHASTIC pooling");
  if (problem.argmax_top) return Unsupported("the argmax top (mask) is a reference-only output");
  if (s.channels < 8) return Unsupported("fewer than 8 channels");
  if (problem.method == kernels::PoolMethod::kMax &&
      static_cast<int64_t>(s.window.kernel_h) * s.window.kernel_w >= kNoTap) {
    return Unsupported("a MAX window of more than 254 taps (the chosen tap is kept in a byte)");
  }
  return CreateWithBlock(problem, onednn::ChannelBlock());
}

StatusOr<std::unique_ptr<kernels::PoolingKernel>> Pooling::CreateWithBlock(
    const kernels::PoolingProblem& problem, int block) {
  if (block != 8 && block != 16) return InvalidArgument("blocks of 8 or 16 channels");
  return std::unique_ptr<kernels::PoolingKernel>(new Pooling(problem, block));
}

Pooling::Pooling(const kernels::PoolingProblem& problem, int block)
    : problem_(problem), block_(block), blocks_((problem.shape.channels + block - 1) / block) {
  const kernels::PoolingShape& s = problem.shape;
  const kernels::Window2d& w = s.window;
  layouts_.src = onednn::ChannelBlockedLayout(s.batch, s.channels, s.in_h, s.in_w, block);
  layouts_.dst = onednn::ChannelBlockedLayout(s.batch, s.channels, s.out_h, s.out_w, block);
  for (int oh = 0; oh < s.out_h; ++oh) {
    rows_.push_back(kernels::PoolingWindow(oh, s.in_h, w.kernel_h, w.pad_h, w.stride_h));
  }
  for (int ow = 0; ow < s.out_w; ++ow) {
    cols_.push_back(kernels::PoolingWindow(ow, s.in_w, w.kernel_w, w.pad_w, w.stride_w));
  }
  tiled_ = Tiles(rows_, s.in_h) && Tiles(cols_, s.in_w);
  if (problem.method == kernels::PoolMethod::kMax) {
    taps_.resize(static_cast<size_t>(s.batch * blocks_ * s.out_h * s.out_w * block_));
  }
}

template <int B>
inline void Pooling::Accumulate(float* to, Vec<B> add) const {
  // Tiled, `to` is written once and has not been zeroed: 0 + add, as the reference adds (so that
  // a -0 gradient arrives as +0).
  StoreTo<B>(to, (tiled_ ? Vec<B>{} : Load<B>(to)) + add);
}

std::string Pooling::implementation() const { return block_ == 16 ? "nChw16c" : "nChw8c"; }

template <int B>
void Pooling::MaxForward(const float* src, float* dst) {
  const kernels::PoolingShape& s = problem_.shape;
  const int64_t in_plane = int64_t{s.in_h} * s.in_w * B;
  const int64_t out_plane = int64_t{s.out_h} * s.out_w * B;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < s.batch * blocks_; ++p) {
    const float* in = src + p * in_plane;
    float* out = dst + p * out_plane;
    uint8_t* chosen_taps = taps_.data() + p * out_plane;
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = rows_[oh];
      for (int ow = 0; ow < s.out_w; ++ow, out += B, chosen_taps += B) {
        const PoolSpan w = cols_[ow];
        Vec<B> best = Splat<B>(-FLT_MAX);
        Taps<B> chosen = SplatTap<B>(kNoTap);
        int tap = 0;
        for (int ih = h.start; ih < h.end; ++ih) {
          const float* row = in + int64_t{ih} * s.in_w * B;
          for (int iw = w.start; iw < w.end; ++iw, ++tap) {
            const Vec<B> v = Load<B>(row + iw * B);
            const Taps<B> greater = v > best;
            best = greater ? v : best;
            chosen = greater ? SplatTap<B>(tap) : chosen;
          }
        }
        StoreTo<B>(out, best);
        StoreTaps<B>(chosen_taps, chosen);
      }
    }
    ZeroPaddingChannels<B>(p, dst + p * out_plane, out_plane / B);
  }
}

template <int B>
void Pooling::MaxBackward(const float* diff_dst, float* diff_src) {
  const kernels::PoolingShape& s = problem_.shape;
  const int64_t in_plane = int64_t{s.in_h} * s.in_w * B;
  const int64_t out_plane = int64_t{s.out_h} * s.out_w * B;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < s.batch * blocks_; ++p) {
    float* in = diff_src + p * in_plane;
    const float* out = diff_dst + p * out_plane;
    const uint8_t* chosen_taps = taps_.data() + p * out_plane;
    if (!tiled_) std::fill(in, in + in_plane, 0.f);
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = rows_[oh];
      for (int ow = 0; ow < s.out_w; ++ow, out += B, chosen_taps += B) {
        const PoolSpan w = cols_[ow];
        const Vec<B> g = Load<B>(out);
        const Taps<B> chosen = LoadTaps<B>(chosen_taps);
        int tap = 0;
        for (int ih = h.start; ih < h.end; ++ih) {
          float* row = in + int64_t{ih} * s.in_w * B;
          for (int iw = w.start; iw < w.end; ++iw, ++tap) {
            // Adding +0 where another tap was chosen changes nothing: diff_src starts at +0.
            const Vec<B> add = chosen == SplatTap<B>(tap) ? g : Vec<B>{};
            Accumulate<B>(row + iw * B, add);
          }
        }
      }
    }
    ZeroPaddingChannels<B>(p, in, in_plane / B);
  }
}

template <int B>
void Pooling::AveForward(const float* src, float* dst) {
  const kernels::PoolingShape& s = problem_.shape;
  const int64_t in_plane = int64_t{s.in_h} * s.in_w * B;
  const int64_t out_plane = int64_t{s.out_h} * s.out_w * B;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < s.batch * blocks_; ++p) {
    const float* in = src + p * in_plane;
    float* out = dst + p * out_plane;
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = rows_[oh];
      for (int ow = 0; ow < s.out_w; ++ow, out += B) {
        const PoolSpan w = cols_[ow];
        Vec<B> sum{};
        for (int ih = h.start; ih < h.end; ++ih) {
          const float* row = in + int64_t{ih} * s.in_w * B;
          for (int iw = w.start; iw < w.end; ++iw) sum += Load<B>(row + iw * B);
        }
        StoreTo<B>(out, sum / static_cast<float>(h.padded_extent * w.padded_extent));
      }
    }
    ZeroPaddingChannels<B>(p, dst + p * out_plane, out_plane / B);
  }
}

template <int B>
void Pooling::AveBackward(const float* diff_dst, float* diff_src) {
  const kernels::PoolingShape& s = problem_.shape;
  const int64_t in_plane = int64_t{s.in_h} * s.in_w * B;
  const int64_t out_plane = int64_t{s.out_h} * s.out_w * B;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < s.batch * blocks_; ++p) {
    float* in = diff_src + p * in_plane;
    const float* out = diff_dst + p * out_plane;
    if (!tiled_) std::fill(in, in + in_plane, 0.f);
    for (int oh = 0; oh < s.out_h; ++oh) {
      const PoolSpan h = rows_[oh];
      for (int ow = 0; ow < s.out_w; ++ow, out += B) {
        const PoolSpan w = cols_[ow];
        const Vec<B> g = Load<B>(out) / static_cast<float>(h.padded_extent * w.padded_extent);
        for (int ih = h.start; ih < h.end; ++ih) {
          float* row = in + int64_t{ih} * s.in_w * B;
          for (int iw = w.start; iw < w.end; ++iw) Accumulate<B>(row + iw * B, g);
        }
      }
    }
    ZeroPaddingChannels<B>(p, in, in_plane / B);
  }
}

template <int B>
void Pooling::ZeroPaddingChannels(int64_t plane, float* data, int64_t pixels) const {
  const int used = problem_.shape.channels - static_cast<int>((blocks_ - 1) * B);
  if (used == B || plane % blocks_ != blocks_ - 1) return;
  Taps<B> lane;
  for (int i = 0; i < B; ++i) lane[i] = i;
  const Taps<B> padding = lane >= SplatTap<B>(used);
  for (int64_t i = 0; i < pixels; ++i) {
    StoreTo<B>(data + i * B, padding ? Vec<B>{} : Load<B>(data + i * B));
  }
}

void Pooling::Forward(const float* src, const float*, float* dst, float*) {
  const bool max = problem_.method == kernels::PoolMethod::kMax;
  if (block_ == 16) {
    max ? MaxForward<16>(src, dst) : AveForward<16>(src, dst);
  } else {
    max ? MaxForward<8>(src, dst) : AveForward<8>(src, dst);
  }
}

void Pooling::Backward(const float*, const float* diff_dst, float* diff_src) {
  const bool max = problem_.method == kernels::PoolMethod::kMax;
  if (block_ == 16) {
    max ? MaxBackward<16>(diff_dst, diff_src) : AveBackward<16>(diff_dst, diff_src);
  } else {
    max ? MaxBackward<8>(diff_dst, diff_src) : AveBackward<8>(diff_dst, diff_src);
  }
}

}  // namespace dtrain::blocked
