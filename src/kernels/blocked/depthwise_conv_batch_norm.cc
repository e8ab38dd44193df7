#include "kernels/blocked/depthwise_conv_batch_norm.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/blocked/batch_norm_lanes.h"
#include "kernels/blocked/row_sums.h"
#include "kernels/onednn/blocked_layout.h"

namespace dtrain::blocked {

// A plane in the thread's buffers with zero margins: `x` the input with its padding ((h + 2 pad_h)
// x (w + 2 pad_w) pixels, x_w a row), `dy` diff_y with K - 1 rows and columns of zeros on each
// side (dy_w a row). Forward zeroes the margins; then only the interiors are written.
struct PaddedPlanes {
  float* x;
  float* dy;
  int64_t x_w, dy_w;
};

namespace {

// Sums run in float over about this many pixels, in double beyond.
constexpr int64_t kFloatPixels = 256;
// The bytes of channel blocks (of each tensor both passes read) a round of two passes works on,
// so that the second pass finds them in the last-level cache.
constexpr int64_t kChunkBytes = int64_t{8} << 20;
// A stride-1 layer whose padded planes (x and diff_y, one channel block) fit in this many bytes
// runs backward's second pass plane by plane (BackwardPlane): well within a core's L2.
constexpr int64_t kPlaneBytes = int64_t{512} << 10;

struct Geometry {
  int64_t h, w, out_h, out_w, stride_h, stride_w, pad_h, pad_w;
  const float* zeros;  // max(w, out_w) pixels of zeros: the rows outside the image
  // The output columns [inner_first, inner_end) whose windows lie wholly inside the input's width
  // (worked out once: the passes run per row, and dividing per row shows on small images).
  int64_t inner_first, inner_end;
};

// The taps [first, end) of a K-wide window starting at `origin` that fall inside [0, extent).
struct Taps {
  int first, end;
};
template <int K>
inline Taps TapsInside(int64_t origin, int64_t extent) {
  return {static_cast<int>(std::max<int64_t>(0, -origin)),
          static_cast<int>(std::clamp<int64_t>(extent - origin, 0, K))};
}

// The K input rows the windows of output row `oh` read, rows outside the image as zeros.
template <int B, int K>
inline void WindowRows(const float* x, const Geometry& g, int64_t oh, const float* (&rows)[K]) {
  const int64_t ih0 = oh * g.stride_h - g.pad_h;
  for (int kh = 0; kh < K; ++kh) {
    const int64_t ih = ih0 + kh;
    rows[kh] = ih >= 0 && ih < g.h ? x + ih * g.w * B : g.zeros;
  }
}

Geometry GeometryOf(const kernels::ConvolutionShape& s, const std::vector<float>& zeros) {
  const kernels::Window2d& w = s.window;
  Geometry g = {s.in_h,  s.in_w,  s.out_h,      s.out_w, w.stride_h, w.stride_w,
                w.pad_h, w.pad_w, zeros.data(), 0,       0};
  const int64_t past = g.w + g.pad_w - w.kernel_w;
  g.inner_end = past < 0 ? 0 : std::min(g.out_w, past / g.stride_w + 1);
  g.inner_first = std::min(g.inner_end, (g.pad_w + g.stride_w - 1) / g.stride_w);
  return g;
}

template <int B, int K>
inline void LoadWeights(const float* weights, Vec<B> (&w)[K * K]) {
  for (int t = 0; t < K * K; ++t) w[t] = Load<B>(weights + t * B);
}

// Output row `oh` of one plane (an image's channel block: h x w pixels of B lanes) into `out`.
template <int B, int K>
void OutputRow(const float* x, const float* weights, const Geometry& g, int64_t oh, float* out) {
  Vec<B> w[K * K];
  LoadWeights<B, K>(weights, w);
  const float* rows[K];
  WindowRows<B, K>(x, g, oh, rows);
  const int64_t first = g.inner_first, end = g.inner_end;
  const int64_t stride = g.stride_w * B;
  auto edge = [&](int64_t ow) {
    const int64_t iw0 = ow * g.stride_w - g.pad_w;
    const Taps cols = TapsInside<K>(iw0, g.w);
    Vec<B> sum = {};
    for (int kh = 0; kh < K; ++kh) {
      for (int kw = cols.first; kw < cols.end; ++kw)
        sum += w[kh * K + kw] * Load<B>(rows[kh] + (iw0 + kw) * B);
    }
    StoreTo<B>(out + ow * B, sum);
  };
  for (int64_t ow = 0; ow < first; ++ow) edge(ow);
  int64_t at = (first * g.stride_w - g.pad_w) * B;
  for (int64_t ow = first; ow < end; ++ow, at += stride) {
    Vec<B> sum = {};
#pragma GCC unroll 5
    for (int kh = 0; kh < K; ++kh) {
#pragma GCC unroll 5
      for (int kw = 0; kw < K; ++kw) sum += w[kh * K + kw] * Load<B>(rows[kh] + at + kw * B);
    }
    StoreTo<B>(out + ow * B, sum);
  }
  for (int64_t ow = end; ow < g.out_w; ++ow) edge(ow);
}

// Adds to `terms` (K x K x B floats) the weight gradient's terms of one output row: diff_y[ow]
// times the input pixels it saw.
template <int B, int K>
void AddWeightTerms(const float* x, const float* diff_y, const Geometry& g, int64_t oh,
                    float* terms_of) {
  Vec<B> terms[K * K];
  LoadWeights<B, K>(terms_of, terms);
  const float* rows[K];
  WindowRows<B, K>(x, g, oh, rows);
  const int64_t first = g.inner_first, end = g.inner_end;
  auto edge = [&](int64_t ow) {
    const int64_t iw0 = ow * g.stride_w - g.pad_w;
    const Taps cols = TapsInside<K>(iw0, g.w);
    const Vec<B> d = Load<B>(diff_y + ow * B);
    for (int kh = 0; kh < K; ++kh) {
      for (int kw = cols.first; kw < cols.end; ++kw)
        terms[kh * K + kw] += d * Load<B>(rows[kh] + (iw0 + kw) * B);
    }
  };
  for (int64_t ow = 0; ow < first; ++ow) edge(ow);
  const int64_t stride = g.stride_w * B;
  int64_t at = (first * g.stride_w - g.pad_w) * B;
  for (int64_t ow = first; ow < end; ++ow, at += stride) {
    const Vec<B> d = Load<B>(diff_y + ow * B);
#pragma GCC unroll 5
    for (int kh = 0; kh < K; ++kh) {
#pragma GCC unroll 5
      for (int kw = 0; kw < K; ++kw) terms[kh * K + kw] += d * Load<B>(rows[kh] + at + kw * B);
    }
  }
  for (int64_t ow = end; ow < g.out_w; ++ow) edge(ow);
  for (int t = 0; t < K * K; ++t) StoreTo<B>(terms_of + t * B, terms[t]);
}

// Moves float `terms` (n values) into double `sums`.
inline void FlushTerms(float* terms, int n, double* sums) {
  for (int i = 0; i < n; ++i) {
    sums[i] += terms[i];
    terms[i] = 0.f;
  }
}

// Input row `ih` of diff_src into `out` (w x B, streaming stores if `stream`): the sum of each
// weight times the diff_y it carried ih's pixels to, the output rows taken from `ring` (row oh at
// oh % K).
template <int B, int K>
void InputRow(const float* ring, const float* weights, const Geometry& g, int64_t ih, float* out,
              bool stream) {
  Vec<B> w[K * K];
  LoadWeights<B, K>(weights, w);
  // The window rows kh through which an output row reads ih, and that row; at stride 1 every kh,
  // rows outside the output as zeros.
  int taps[K], count = 0;
  const float* rows[K];
  for (int kh = 0; kh < K; ++kh) {
    int64_t oh = ih + g.pad_h - kh;  // times stride_h
    bool read = oh >= 0;
    if (g.stride_h > 1) {
      read = read && oh % g.stride_h == 0;
      oh /= g.stride_h;
    }
    read = read && oh < g.out_h;
    if (!read && g.stride_h > 1) continue;
    taps[count] = kh;
    rows[count++] = read ? ring + (oh % K) * g.out_w * B : g.zeros;
  }
  // Column iw is read through kw = r, r + stride, ... by output columns q, q - 1, ..., where
  // iw + pad_w = q * stride + r: both kept as iw advances, without dividing.
  int64_t q = g.pad_w / g.stride_w, r = g.pad_w % g.stride_w;
  auto advance = [&] {
    if (++r == g.stride_w) r = 0, ++q;
  };
  auto column = [&](int64_t iw, bool inside) {
    Vec<B> sum = {};
    for (int i = 0; i < count; ++i) {
      const Vec<B>* wr = w + taps[i] * K;
      int64_t ow = q;
      for (int64_t kw = r; kw < K; kw += g.stride_w, --ow) {
        if (inside || (ow >= 0 && ow < g.out_w)) sum += wr[kw] * Load<B>(rows[i] + ow * B);
      }
    }
    Store<B>(out + iw * B, sum, stream);
  };
  // [first, end): the columns whose every kw reads a column inside the output.
  const int64_t first = std::min<int64_t>(g.w, std::max<int64_t>(0, K - 1 - g.pad_w));
  const int64_t end = std::clamp<int64_t>((g.out_w - 1) * g.stride_w - g.pad_w + 1, first, g.w);
  for (int64_t iw = 0; iw < first; ++iw, advance()) column(iw, false);
  if (g.stride_h == 1 && g.stride_w == 1) {  // unrolled
    for (int64_t iw = first; iw < end; ++iw) {
      Vec<B> sum = {};
#pragma GCC unroll 5
      for (int kh = 0; kh < K; ++kh) {
        const float* at = rows[kh] + (iw + g.pad_w) * B;
#pragma GCC unroll 5
        for (int kw = 0; kw < K; ++kw) sum += w[kh * K + kw] * Load<B>(at - kw * B);
      }
      Store<B>(out + iw * B, sum, stream);
    }
    q += end - first;
  } else {
    for (int64_t iw = first; iw < end; ++iw, advance()) column(iw, true);
  }
  for (int64_t iw = end; iw < g.w; ++iw, advance()) column(iw, false);
}

// Adds a row's per-lane sums of two quantities to a block's sums: B of the first, then B of the
// second.
template <int B>
void AddLanePairs(Vec<B> first, Vec<B> second, double* sums) {
  for (int lane = 0; lane < B; ++lane) {
    sums[lane] += first[lane];
    sums[B + lane] += second[lane];
  }
}

// The ReLU, if any, as a mask: where a normalised value (or its diff) passes.
template <int B>
struct ReluGate {
  using Mask = decltype(Vec<B>{} < Vec<B>{});
  Mask always;  // all set without a ReLU
  explicit ReluGate(bool relu) : always(relu ? Mask{} : Mask{} == Mask{}) {}
  Vec<B> operator()(Vec<B> normalized, Vec<B> value) const {
    const Vec<B> zero = {};
    return ((normalized > zero) | always) ? value : zero;
  }
};

// Backward's diff_y from y and diff_dst: the normalisation's gradient through the ReLU's mask.
template <int B>
struct DiffY {
  Coefficients<B> k;
  ReluGate<B> relu;
  Vec<B> dy_gain, x_gain, offset;
  Vec<B> operator()(Vec<B> y, Vec<B> diff) const {
    const Vec<B> d = relu(Normalized<B>(y, k), diff);
    return dy_gain * d + x_gain * (y - k.center) + offset;
  }
};

// x's rows from *next_ih up to (not including) `end` into the padded plane, as the output rows
// first read them: their loads from memory overlap the work on the rows before.
template <int B>
inline void CopyRows(const float* x, const Geometry& g, const PaddedPlanes& p, int64_t end,
                     int64_t* next_ih) {
  for (; *next_ih < end; ++*next_ih) {
    const float* from = x + *next_ih * g.w * B;
    float* to = p.x + ((*next_ih + g.pad_h) * p.x_w + g.pad_w) * B;
    for (int64_t iw = 0; iw < g.w; ++iw) StoreTo<B>(to + iw * B, Load<B>(from + iw * B));
  }
}

// Line `pixel` x B / 16 of the plane x a thread reads next (nullptr: none) into L2, called once per
// pixel of the plane before it: waiting for x's loads from memory took a quarter of the time.
template <int B>
inline void PrefetchNext(const float* next_x, const Geometry& g, int64_t pixel) {
  const int64_t line = pixel * B / 16;
  if (next_x && line < g.h * g.w * B / 16) __builtin_prefetch(next_x + line * 16, 0, 2);
}

// Forward's output row oh (stride 1) from the padded x plane: no edge columns.
template <int B, int K>
void PaddedOutputRow(const PaddedPlanes& p, const Vec<B> (&w)[K * K], const Geometry& g, int64_t oh,
                     const float* next_x, float* out) {
  const float* rows[K];
  for (int kh = 0; kh < K; ++kh) rows[kh] = p.x + (oh + kh) * p.x_w * B;
  for (int64_t ow = 0; ow < g.out_w; ++ow) {
    PrefetchNext<B>(next_x, g, oh * g.out_w + ow);
    Vec<B> sum = {};
#pragma GCC unroll 5
    for (int kh = 0; kh < K; ++kh) {
#pragma GCC unroll 5
      for (int kw = 0; kw < K; ++kw) sum += w[kh * K + kw] * Load<B>(rows[kh] + (ow + kw) * B);
    }
    StoreTo<B>(out + ow * B, sum);
  }
}

// Backward's second pass over one small plane at stride 1, with x and diff_y in padded planes in
// the cache (DepthwiseConvBatchNorm::whole_planes_): no loop has an edge column or row, and the
// weights and the weight gradient's terms stay in registers over the whole plane.
template <int B, int K>
void BackwardPlane(const float* x, const float* next_x, const float* y, const float* diff_dst,
                   const Geometry& g, const DiffY<B>& diff_y, const float* weights,
                   const PaddedPlanes& p, float* terms_out, double* sums, float* diff_src,
                   bool stream) {
  const bool weight_terms = sums != nullptr;
  Vec<B> terms[K * K] = {};
  int64_t summed = 0;   // output pixels in `terms`
  int64_t next_ih = 0;  // the first input row not yet in p.x
  for (int64_t oh = 0; oh < g.out_h; ++oh) {
    if (weight_terms) CopyRows<B>(x, g, p, std::min(g.h, oh + K - g.pad_h), &next_ih);
    const float* rows[K];
    for (int kh = 0; kh < K; ++kh) rows[kh] = p.x + (oh + kh) * p.x_w * B;
    const float* yr = y + oh * g.out_w * B;
    const float* dr = diff_dst + oh * g.out_w * B;
    float* out = p.dy + ((oh + K - 1) * p.dy_w + K - 1) * B;
    if (weight_terms) {
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        PrefetchNext<B>(next_x, g, oh * g.out_w + ow);
        const Vec<B> d = diff_y(Load<B>(yr + ow * B), Load<B>(dr + ow * B));
        StoreTo<B>(out + ow * B, d);
#pragma GCC unroll 5
        for (int kh = 0; kh < K; ++kh) {
#pragma GCC unroll 5
          for (int kw = 0; kw < K; ++kw)
            terms[kh * K + kw] += d * Load<B>(rows[kh] + (ow + kw) * B);
        }
      }
      summed += g.out_w;
      if (summed >= kFloatPixels || oh + 1 == g.out_h) {
        for (int t = 0; t < K * K; ++t) {
          StoreTo<B>(terms_out + t * B, terms[t]);
          terms[t] = Vec<B>{};
        }
        FlushTerms(terms_out, K * K * B, sums);
        summed = 0;
      }
    } else {
      for (int64_t ow = 0; ow < g.out_w; ++ow)
        StoreTo<B>(out + ow * B, diff_y(Load<B>(yr + ow * B), Load<B>(dr + ow * B)));
    }
  }
  if (!diff_src) return;
  Vec<B> w[K * K];
  LoadWeights<B, K>(weights, w);
  for (int64_t ih = 0; ih < g.h; ++ih) {
    // Output row oh = ih + pad_h - kh at padded row oh + K - 1; output column likewise.
    const float* rows[K];
    for (int kh = 0; kh < K; ++kh) rows[kh] = p.dy + (ih + g.pad_h + K - 1 - kh) * p.dy_w * B;
    float* out = diff_src + ih * g.w * B;
    for (int64_t iw = 0; iw < g.w; ++iw) {
      const int64_t at = (iw + g.pad_w + K - 1) * B;
      Vec<B> sum = {};
#pragma GCC unroll 5
      for (int kh = 0; kh < K; ++kh) {
#pragma GCC unroll 5
        for (int kw = 0; kw < K; ++kw) sum += w[kh * K + kw] * Load<B>(rows[kh] + at - kw * B);
      }
      Store<B>(out + iw * B, sum, stream);
    }
  }
}

bool Streams(const float* out, int64_t floats) {
  return floats * 4 >= static_cast<int64_t>(kStreamBytes) &&
         reinterpret_cast<uintptr_t>(out) % 16 == 0;
}

}  // namespace

StatusOr<std::unique_ptr<kernels::ConvBatchNormKernel>> DepthwiseConvBatchNorm::Create(
    const kernels::ConvBatchNormProblem& problem, const kernels::KernelRequest&) {
  const kernels::ConvolutionShape& s = problem.shape;
  const kernels::Window2d& w = s.window;
  if (!s.leading.empty()) return Unsupported("more than two spatial axes");
  if (s.groups != s.in_channels || s.out_channels != s.in_channels) {
    return Unsupported("not a depthwise convolution (one filter per channel)");
  }
  if (w.kernel_h != w.kernel_w || (w.kernel_h != 3 && w.kernel_h != 5)) {
    return Unsupported("a window other than 3x3 or 5x5");
  }
  if (w.dilation_h != 1 || w.dilation_w != 1) return Unsupported("dilation");
  if (s.in_channels < 8) return Unsupported("fewer than 8 channels");
  if (static_cast<int64_t>(s.batch) * s.out_h * s.out_w == 0) return Unsupported("an empty batch");
  return std::unique_ptr<kernels::ConvBatchNormKernel>(new DepthwiseConvBatchNorm(problem));
}

DepthwiseConvBatchNorm::DepthwiseConvBatchNorm(const kernels::ConvBatchNormProblem& problem)
    : problem_(problem),
      block_(onednn::ChannelBlock()),
      kernel_(problem.shape.window.kernel_h),
      blocks_((problem.shape.in_channels + block_ - 1) / block_) {
  const kernels::ConvolutionShape& s = problem.shape;
  layouts_.src = onednn::ChannelBlockedLayout(s.batch, s.in_channels, s.in_h, s.in_w, block_);
  layouts_.dst = onednn::ChannelBlockedLayout(s.batch, s.out_channels, s.out_h, s.out_w, block_);
  const size_t padded = static_cast<size_t>(blocks_ * block_);
  weights_.assign(padded * kernel_ * kernel_, 0.f);
  for (std::vector<float>* v : {&gain_, &center_, &shift_, &dy_gain_, &x_gain_, &offset_})
    v->assign(padded, 0.f);
  inv_std_.assign(padded, 0.0);
  zeros_.assign(static_cast<size_t>(std::max(s.in_w, s.out_w) * block_), 0.f);
  const kernels::Window2d& w = s.window;
  padded_x_w_ = int64_t{s.in_w} + 2 * w.pad_w;
  padded_dy_w_ = int64_t{s.out_w} + 2 * (kernel_ - 1);
  padded_floats_ = (padded_x_w_ * (int64_t{s.in_h} + 2 * w.pad_h) +
                    padded_dy_w_ * (int64_t{s.out_h} + 2 * (kernel_ - 1))) *
                   block_;
  whole_planes_ = w.stride_h == 1 && w.stride_w == 1 && padded_floats_ * 4 <= kPlaneBytes;
  sums_.assign(padded * 2, 0.0);
  weight_sums_.assign(padded * kernel_ * kernel_, 0.0);
}

std::string DepthwiseConvBatchNorm::implementation() const {
  return std::string("depthwise ") + std::to_string(kernel_) + "x" + std::to_string(kernel_) +
         (block_ == 16 ? ":nChw16c" : ":nChw8c");
}

template <typename F>
void DepthwiseConvBatchNorm::Dispatch(F f) const {
  using std::integral_constant;
  if (block_ == 16) {
    if (kernel_ == 3) return f(integral_constant<int, 16>(), integral_constant<int, 3>());
    return f(integral_constant<int, 16>(), integral_constant<int, 5>());
  }
  if (kernel_ == 3) return f(integral_constant<int, 8>(), integral_constant<int, 3>());
  return f(integral_constant<int, 8>(), integral_constant<int, 5>());
}

size_t DepthwiseConvBatchNorm::ThreadFloats() const {
  const kernels::ConvolutionShape& s = problem_.shape;
  const int64_t rows = whole_planes_ ? padded_floats_ : int64_t{kernel_} * s.out_w * block_;
  return static_cast<size_t>(rows + kernel_ * kernel_ * block_);
}

void DepthwiseConvBatchNorm::GrowThreadBuffers() {
  const size_t needed = ThreadFloats() * omp_get_max_threads();
  if (buffers_.size() < needed) buffers_.resize(needed);  // the first call, or more threads
}

float* DepthwiseConvBatchNorm::ThreadBuffers(int thread) {
  return buffers_.data() + ThreadFloats() * thread;
}

PaddedPlanes DepthwiseConvBatchNorm::Padded(float* buffers) const {
  const int64_t x_floats =
      padded_x_w_ * (int64_t{problem_.shape.in_h} + 2 * problem_.shape.window.pad_h) * block_;
  return {buffers, buffers + x_floats, padded_x_w_, padded_dy_w_};
}

void DepthwiseConvBatchNorm::Forward(const float* src, const float* weights, const float* scale,
                                     const float* shift, float* dst, float* mean, float* variance) {
  Dispatch([&](auto b, auto k) {
    ForwardBlocks<decltype(b)::value, decltype(k)::value>(src, weights, scale, shift, dst, mean,
                                                          variance);
  });
}

void DepthwiseConvBatchNorm::Backward(const float* src, const float* /*dst*/, float* diff_dst,
                                      const float* /*weights: packed in forward*/,
                                      const float* scale, float* diff_src, float* diff_weights,
                                      float* diff_scale, float* diff_shift) {
  Dispatch([&](auto b, auto k) {
    BackwardBlocks<decltype(b)::value, decltype(k)::value>(src, diff_dst, scale, diff_src,
                                                           diff_weights, diff_scale, diff_shift);
  });
}

template <typename First, typename Middle, typename Second>
void DepthwiseConvBatchNorm::ChunkedPasses(int tensors, int64_t per_block, First first,
                                           Middle middle, Second second) {
  const kernels::ConvolutionShape& s = problem_.shape;
  const int64_t block_bytes = static_cast<int64_t>(s.batch) * s.out_h * s.out_w * block_ * 4;
  const int64_t chunk = std::clamp<int64_t>(kChunkBytes / (block_bytes * tensors), 1, blocks_);
  for (int64_t begin = 0; begin < blocks_; begin += chunk) {
    const int64_t count = std::min(chunk, blocks_ - begin);
    // Row i of the chunk: image i / count, block begin + i % count.
    auto plane_of = [&](int64_t i) { return (i / count) * blocks_ + begin + i % count; };
    SumOverRows(
        s.batch * count, count, per_block, count * per_block,
        [&](int64_t i, double* sums) {
          first(plane_of(i), i + 1 < s.batch * count ? plane_of(i + 1) : -1, sums);
        },
        &partial_, sums_.data() + begin * per_block);
    middle(begin, begin + count);
    second(count, plane_of);
  }
}

template <int B, int K>
void DepthwiseConvBatchNorm::ForwardBlocks(const float* src, const float* weights,
                                           const float* scale, const float* shift, float* dst,
                                           float* mean, float* variance) {
  const kernels::ConvolutionShape& s = problem_.shape;
  const Geometry g = GeometryOf(s, zeros_);
  const int64_t channels = s.in_channels, planes = s.batch * blocks_;
  const int64_t in_plane = int64_t{s.in_h} * s.in_w * B, row_floats = int64_t{s.out_w} * B;
  const int64_t out_plane = s.out_h * row_floats;
  for (int64_t c = 0; c < channels; ++c) {
    for (int t = 0; t < K * K; ++t)
      weights_[((c / B) * K * K + t) * B + c % B] = weights[c * K * K + t];
  }
  GrowThreadBuffers();
  y_.resize(static_cast<size_t>(planes * out_plane));  // the first call
  // The pivot: the first image's middle output pixel, per channel.
  float* row = ThreadBuffers(0);
  for (int64_t block = 0; block < blocks_; ++block) {
    OutputRow<B, K>(src + block * in_plane, weights_.data() + block * K * K * B, g, s.out_h / 2,
                    row);
    for (int lane = 0; lane < B; ++lane) center_[block * B + lane] = row[(s.out_w / 2) * B + lane];
  }
  // The padded planes' margins, for this call and backward's (the pivot's row was made in the
  // same buffers; after this only the planes' interiors are written).
  if (whole_planes_) std::fill(buffers_.begin(), buffers_.end(), 0.f);
  const double m = static_cast<double>(s.batch) * s.out_h * s.out_w;
  const bool stream = Streams(dst, planes * out_plane);
  ChunkedPasses(
      1, 2 * B,
      [&](int64_t plane, int64_t next, double* sums) {  // y row by row, summed as made, kept
        const Vec<B> pivot = Load<B>(&center_[(plane % blocks_) * B]);
        const float* x = src + plane * in_plane;
        const float* weights = weights_.data() + (plane % blocks_) * K * K * B;
        float* buffers = ThreadBuffers(omp_get_thread_num());
        // Whole planes: x padded in the buffers, each row made straight into y_. Else each row
        // made in the buffers (edges by their own loops) and copied.
        const PaddedPlanes padded = whole_planes_ ? Padded(buffers) : PaddedPlanes{};
        const float* next_x = whole_planes_ && next >= 0 ? src + next * in_plane : nullptr;
        Vec<B> w[K * K];
        LoadWeights<B, K>(weights, w);
        int64_t next_ih = 0;  // the first input row not yet in the padded plane
        Vec<B> sum = {}, squares = {};
        int64_t pending = 0;  // pixels in the float sums
        for (int64_t oh = 0; oh < s.out_h; ++oh) {
          float* kept = y_.data() + plane * out_plane + oh * row_floats;
          if (whole_planes_) {
            CopyRows<B>(x, g, padded, std::min(g.h, oh + K - g.pad_h), &next_ih);
            PaddedOutputRow<B, K>(padded, w, g, oh, next_x, kept);
          } else {
            OutputRow<B, K>(x, weights, g, oh, buffers);
          }
          const float* made = whole_planes_ ? kept : buffers;
          for (int64_t ow = 0; ow < s.out_w; ++ow) {
            const Vec<B> v = Load<B>(made + ow * B);
            if (!whole_planes_) StoreTo<B>(kept + ow * B, v);
            const Vec<B> d = v - pivot;
            sum += d;
            squares += d * d;
          }
          pending += s.out_w;
          if (pending >= kFloatPixels || oh + 1 == s.out_h) {
            AddLanePairs<B>(sum, squares, sums);
            sum = squares = Vec<B>{};
            pending = 0;
          }
        }
      },
      [&](int64_t first_block, int64_t end_block) {
        for (int64_t c = first_block * B; c < std::min(end_block * B, channels); ++c) {
          const int64_t at = (c / B) * 2 * B + c % B;
          const double offset = sums_[at] / m;
          mean[c] = static_cast<float>(center_[c] + offset);
          variance[c] = static_cast<float>(std::max(sums_[at + B] / m - offset * offset, 0.0));
          inv_std_[c] = 1.0 / std::sqrt(static_cast<double>(variance[c]) + problem_.eps);
          gain_[c] = static_cast<float>(scale[c] * inv_std_[c]);
          center_[c] = mean[c];
          shift_[c] = shift[c];
        }
        for (int64_t c = std::max(channels, first_block * B); c < end_block * B; ++c)
          center_[c] = 0.f;
      },
      [&](int64_t count, auto plane_of) {  // dst = relu(normalised y)
        ForRows(s.batch * count, [&](int64_t i) {
          const int64_t plane = plane_of(i), block = plane % blocks_;
          const Coefficients<B> k(&gain_[block * B], &center_[block * B], &shift_[block * B]);
          const ReluGate<B> relu(problem_.relu);
          const float* y = y_.data() + plane * out_plane;
          float* out = dst + plane * out_plane;
          for (int64_t p = 0; p < int64_t{s.out_h} * s.out_w; ++p) {
            const Vec<B> z = Normalized<B>(Load<B>(y + p * B), k);
            Store<B>(out + p * B, relu(z, z), stream);
          }
          FenceStreamingStores();
        });
      });
}

template <int B, int K>
void DepthwiseConvBatchNorm::BackwardBlocks(const float* src, const float* diff_dst,
                                            const float* scale, float* diff_src,
                                            float* diff_weights, float* diff_scale,
                                            float* diff_shift) {
  const kernels::ConvolutionShape& s = problem_.shape;
  const Geometry g = GeometryOf(s, zeros_);
  const int64_t channels = s.in_channels, planes = s.batch * blocks_;
  const int64_t in_plane = int64_t{s.in_h} * s.in_w * B, row_floats = int64_t{s.out_w} * B;
  const int64_t out_plane = s.out_h * row_floats;
  const double m = static_cast<double>(s.batch) * s.out_h * s.out_w;
  const bool stream = diff_src && Streams(diff_src, planes * in_plane);
  GrowThreadBuffers();
  std::fill(weight_sums_.begin(), weight_sums_.end(), 0.0);
  ChunkedPasses(
      2, 2 * B,
      [&](int64_t plane, int64_t /*next*/, double* sums) {  // sum(diff), sum(diff (y - mean))
        const int64_t block = plane % blocks_;
        const Coefficients<B> k(&gain_[block * B], &center_[block * B], &shift_[block * B]);
        const ReluGate<B> relu(problem_.relu);  // the diff that reaches the normalisation
        const float* y = y_.data() + plane * out_plane;
        const float* dz = diff_dst + plane * out_plane;
        const int64_t pixels = int64_t{s.out_h} * s.out_w;
        for (int64_t start = 0; start < pixels; start += kFloatPixels) {
          Vec<B> sum = {}, products = {};
          for (int64_t p = start; p < std::min(pixels, start + kFloatPixels); ++p) {
            const Vec<B> yv = Load<B>(y + p * B);
            const Vec<B> d = relu(Normalized<B>(yv, k), Load<B>(dz + p * B));
            sum += d;
            products += d * (yv - k.center);
          }
          AddLanePairs<B>(sum, products, sums);
        }
      },
      [&](int64_t first_block, int64_t end_block) {
        for (int64_t c = first_block * B; c < std::min(end_block * B, channels); ++c) {
          const int64_t at = (c / B) * 2 * B + c % B;
          const double sum = sums_[at], centered = sums_[at + B], inv_std = inv_std_[c];
          diff_shift[c] = static_cast<float>(sum);
          diff_scale[c] = static_cast<float>(centered * inv_std);
          const double gain = scale[c] * inv_std;
          dy_gain_[c] = static_cast<float>(gain);
          x_gain_[c] = static_cast<float>(-gain * inv_std * inv_std * centered / m);
          offset_[c] = static_cast<float>(-gain * sum / m);
        }
      },
      [&](int64_t count, auto plane_of) {
        if (!diff_src && !diff_weights) return;
        // Each output row's diff_y into the ring, its weight terms summed, and each input row of
        // diff_src written once every output row that reads it is in the ring.
        SumOverRows(
            s.batch * count, count, K * K * B, count * K * K * B,
            [&](int64_t i, double* sums) {
              const int64_t plane = plane_of(i), block = plane % blocks_;
              const DiffY<B> diff_y = {
                  Coefficients<B>(&gain_[block * B], &center_[block * B], &shift_[block * B]),
                  ReluGate<B>(problem_.relu), Load<B>(&dy_gain_[block * B]),
                  Load<B>(&x_gain_[block * B]), Load<B>(&offset_[block * B])};
              const float* weights = weights_.data() + block * K * K * B;
              const float* x = src + plane * in_plane;
              float* buffers = ThreadBuffers(omp_get_thread_num());
              if (whole_planes_) {
                const float* next_x =
                    i + 1 < s.batch * count ? src + plane_of(i + 1) * in_plane : nullptr;
                BackwardPlane<B, K>(x, next_x, y_.data() + plane * out_plane,
                                    diff_dst + plane * out_plane, g, diff_y, weights,
                                    Padded(buffers), buffers + padded_floats_,
                                    diff_weights ? sums : nullptr,
                                    diff_src ? diff_src + plane * in_plane : nullptr, stream);
                FenceStreamingStores();
                return;
              }
              float* ring = buffers;
              float* terms = ring + K * row_floats;  // float sums of the weight gradient
              int64_t next_ih = 0;  // the first input row of diff_src not yet written
              int64_t summed = 0;   // output pixels in `terms`
              for (int64_t oh = 0; oh < s.out_h; ++oh) {
                const float* y = y_.data() + plane * out_plane + oh * row_floats;
                const float* dz = diff_dst + plane * out_plane + oh * row_floats;
                float* dy = ring + (oh % K) * row_floats;
                for (int64_t ow = 0; ow < s.out_w; ++ow)
                  StoreTo<B>(dy + ow * B, diff_y(Load<B>(y + ow * B), Load<B>(dz + ow * B)));
                if (diff_weights) {
                  AddWeightTerms<B, K>(x, dy, g, oh, terms);
                  summed += s.out_w;
                  if (summed >= kFloatPixels || oh + 1 == s.out_h) {
                    FlushTerms(terms, K * K * B, sums);
                    summed = 0;
                  }
                }
                if (!diff_src) continue;
                // Rows ih with every reader at or before oh: ih + pad_h < (oh + 1) * stride_h.
                const int64_t done =
                    oh + 1 == s.out_h ? s.in_h
                                      : std::min<int64_t>(s.in_h, (oh + 1) * g.stride_h - g.pad_h);
                for (; next_ih < done; ++next_ih) {
                  InputRow<B, K>(ring, weights, g, next_ih,
                                 diff_src + plane * in_plane + next_ih * s.in_w * B, stream);
                }
              }
              FenceStreamingStores();
            },
            &partial_, weight_sums_.data() + (plane_of(0) % blocks_) * K * K * B);
      });
  if (!diff_weights) return;
  for (int64_t c = 0; c < channels; ++c) {
    for (int t = 0; t < K * K; ++t) {
      diff_weights[c * K * K + t] +=
          static_cast<float>(weight_sums_[((c / B) * K * K + t) * B + c % B]);
    }
  }
}

}  // namespace dtrain::blocked
