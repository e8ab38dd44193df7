#include "kernels/blocked/batch_norm.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/blocked/batch_norm_lanes.h"
#include "kernels/onednn/blocked_layout.h"

namespace dtrain::blocked {
namespace {

// The bytes of channel blocks a two-pass round works on, so that the second pass finds them in
// the last-level cache.
constexpr int64_t kChunkBytes = int64_t{8} << 20;

}  // namespace

StatusOr<std::unique_ptr<kernels::BatchNormKernel>> BatchNorm::Create(
    const kernels::BatchNormProblem& problem, const kernels::KernelRequest&) {
  if (problem.global_stats) return Unsupported("global statistics (oneDNN's kernel takes them)");
  if (problem.groups > 1) return Unsupported("statistics over sub-batches (stats_batch_size)");
  if (problem.channels < 8) return Unsupported("fewer than 8 channels");
  if (problem.num * problem.spatial == 0) return Unsupported("an empty batch");
  const int block = onednn::ChannelBlock();
  return std::unique_ptr<kernels::BatchNormKernel>(new BatchNorm(problem, block));
}

BatchNorm::BatchNorm(const kernels::BatchNormProblem& problem, int block)
    : problem_(problem), block_(block), blocks_((problem.channels + block - 1) / block) {
  const kernels::BatchNormProblem& p = problem;
  layouts_.src = layouts_.dst = onednn::ChannelBlockedLayout(
      p.num, p.channels, p.height, p.height == 0 ? 0 : p.spatial / p.height, block);
  const size_t padded = static_cast<size_t>(blocks_ * block_);
  gain_.assign(padded, 0.f);
  center_.assign(padded, 0.f);
  shift_.assign(padded, 0.f);
  dy_gain_.assign(padded, 0.f);
  x_gain_.assign(padded, 0.f);
  offset_.assign(padded, 0.f);
}

std::string BatchNorm::implementation() const { return block_ == 16 ? "nChw16c" : "nChw8c"; }

// Adds a row's two float sums, lane by lane, to its channels' double ones.
template <int B>
static void AddLanes(Vec<B> first, Vec<B> second, double* out) {
  for (int lane = 0; lane < B; ++lane) {
    out[2 * lane] += first[lane];
    out[2 * lane + 1] += second[lane];
  }
}

template <typename ReduceRow, typename MakeCoefficients, typename ApplyRow>
void BatchNorm::TwoPasses(int tensors, ReduceRow reduce_row, MakeCoefficients coefficients,
                          ApplyRow apply_row) {
  const int64_t num = problem_.num, block_bytes = num * problem_.spatial * block_ * 4;
  const int64_t chunk = std::clamp<int64_t>(kChunkBytes / (block_bytes * tensors), 1, blocks_);
  const size_t width = static_cast<size_t>(blocks_ * block_ * 2);
  const int threads = omp_get_max_threads();
  partial_.resize(width * threads);
  sums_.resize(width);
#pragma omp parallel num_threads(threads)
  {
    const int thread = omp_get_thread_num(), team = omp_get_num_threads();  // team <= threads
    double* mine = partial_.data() + width * thread;
    for (int64_t first = 0; first < blocks_; first += chunk) {
      const int64_t count = std::min(chunk, blocks_ - first);
      const size_t from = static_cast<size_t>(first * block_ * 2);
      const size_t to = static_cast<size_t>((first + count) * block_ * 2);
      std::fill(mine + from, mine + to, 0.0);
      // Each thread reduces its share of the chunk's rows, then applies the same rows in the
      // opposite order, starting with what it read last, which is still in its caches.
      const int64_t rows = num * count;
      const int64_t begin = rows * thread / team, end = rows * (thread + 1) / team;
      for (int64_t i = begin; i < end; ++i) {
        const int64_t block = first + i % count;
        reduce_row((i / count) * blocks_ + block, block, mine + block * block_ * 2);
      }
#pragma omp barrier
#pragma omp single
      {
        for (size_t k = from; k < to; ++k) {
          double sum = 0;
          for (int t = 0; t < team; ++t) sum += partial_[width * t + k];
          sums_[k] = sum;
        }
        coefficients(first * block_, std::min((first + count) * block_, problem_.channels));
      }
      for (int64_t i = end; i-- > begin;) {
        const int64_t block = first + i % count;
        apply_row((i / count) * blocks_ + block, block);
      }
    }
    FenceStreamingStores();
  }
}

template <int B>
void BatchNorm::ForwardBlocks(const float* src, float* dst, float* mean, float* variance,
                              const float* scale, const float* shift) {
  const kernels::BatchNormProblem& p = problem_;
  const int64_t spatial = p.spatial, row_floats = spatial * B;
  // The pivot: each channel's first value, subtracted before summing squares.
  for (int64_t block = 0; block < blocks_; ++block) {
    for (int lane = 0; lane < B; ++lane) center_[block * B + lane] = src[block * row_floats + lane];
  }
  const double m = static_cast<double>(p.num) * spatial;
  const bool stream = StreamsTo(dst, src);
  const bool relu = p.relu;
  TwoPasses(
      1,
      [&](int64_t row, int64_t block, double* out) {
        const float* x = src + row * row_floats;
        const Vec<B> pivot = Load<B>(&center_[block * B]);
        Vec<B> sum0 = {}, sum1 = {}, squares0 = {}, squares1 = {};
        int64_t s = 0;
        for (; s + 1 < spatial; s += 2) {
          const Vec<B> d0 = Load<B>(x + s * B) - pivot, d1 = Load<B>(x + (s + 1) * B) - pivot;
          sum0 += d0;
          squares0 += d0 * d0;
          sum1 += d1;
          squares1 += d1 * d1;
        }
        if (s < spatial) {
          const Vec<B> d = Load<B>(x + s * B) - pivot;
          sum0 += d;
          squares0 += d * d;
        }
        AddLanes<B>(sum0 + sum1, squares0 + squares1, out);
      },
      [&](int64_t first, int64_t end) {
        for (int64_t c = first; c < end; ++c) {
          const double offset = sums_[2 * c] / m;
          mean[c] = static_cast<float>(center_[c] + offset);
          variance[c] = static_cast<float>(std::max(sums_[2 * c + 1] / m - offset * offset, 0.0));
          const double inverse_std = 1.0 / std::sqrt(static_cast<double>(variance[c]) + p.eps);
          gain_[c] = static_cast<float>((p.scale_shift ? scale[c] : 1.0) * inverse_std);
          center_[c] = mean[c];
          shift_[c] = p.scale_shift ? shift[c] : 0.f;
        }
        // Padding channels (past the last channel of the last block): zero in, zero out.
        for (int64_t c = std::max(end, p.channels); c < (end + B - 1) / B * B; ++c)
          center_[c] = 0.f;
      },
      [&](int64_t row, int64_t block) {
        const Coefficients<B> k(&gain_[block * B], &center_[block * B], &shift_[block * B]);
        const Vec<B> zero = {};
        const float* x = src + row * row_floats;
        float* y = dst + row * row_floats;
        for (int64_t s = spatial; s-- > 0;) {  // backwards, as TwoPasses' apply order
          Vec<B> out = Normalized<B>(Load<B>(x + s * B), k);
          if (relu) out = out > zero ? out : zero;
          Store<B>(y + s * B, out, stream);
        }
      });
}

template <int B>
void BatchNorm::BackwardBlocks(const float* src, const float* mean, const float* variance,
                               const float* scale, const float* diff_dst, float* diff_src,
                               float* diff_scale, float* diff_shift) {
  const kernels::BatchNormProblem& p = problem_;
  const int64_t spatial = p.spatial, row_floats = spatial * B;
  const bool relu = p.relu;
  // The diff that reaches the normalisation: diff_dst where the forward's ReLU passed it.
  auto passed = [relu](Vec<B> x, Vec<B> dy, const Coefficients<B>& forward) {
    if (!relu) return dy;
    const Vec<B> zero = {};
    return Normalized<B>(x, forward) > zero ? dy : zero;
  };
  // diff_src = dy_gain_ * dy + x_gain_ * (x - mean) + offset_ per channel (padding: all zero).
  const double m = static_cast<double>(p.num) * spatial;
  const bool stream = StreamsTo(diff_src, diff_dst);
  TwoPasses(
      2,
      [&](int64_t row, int64_t block, double* out) {  // sum(dy), sum(dy * (x - mean))
        const float* x = src + row * row_floats;
        const float* dy = diff_dst + row * row_floats;
        const Coefficients<B> k(&gain_[block * B], &center_[block * B], &shift_[block * B]);
        Vec<B> sum0 = {}, sum1 = {}, products0 = {}, products1 = {};
        int64_t s = 0;
        for (; s + 1 < spatial; s += 2) {
          const Vec<B> x0 = Load<B>(x + s * B), x1 = Load<B>(x + (s + 1) * B);
          const Vec<B> d0 = passed(x0, Load<B>(dy + s * B), k);
          const Vec<B> d1 = passed(x1, Load<B>(dy + (s + 1) * B), k);
          sum0 += d0;
          products0 += d0 * (x0 - k.center);
          sum1 += d1;
          products1 += d1 * (x1 - k.center);
        }
        if (s < spatial) {
          const Vec<B> x0 = Load<B>(x + s * B);
          const Vec<B> d0 = passed(x0, Load<B>(dy + s * B), k);
          sum0 += d0;
          products0 += d0 * (x0 - k.center);
        }
        AddLanes<B>(sum0 + sum1, products0 + products1, out);
      },
      [&](int64_t first, int64_t end) {
        for (int64_t c = first; c < end; ++c) {
          const double inverse_std = 1.0 / std::sqrt(static_cast<double>(variance[c]) + p.eps);
          const double g = p.scale_shift ? scale[c] : 1.0;
          const double sum_dy = sums_[2 * c], sum_dy_centered = sums_[2 * c + 1];
          if (p.scale_shift) {
            diff_shift[c] = static_cast<float>(sum_dy);
            diff_scale[c] = static_cast<float>(sum_dy_centered * inverse_std);
          }
          dy_gain_[c] = static_cast<float>(g * inverse_std);
          x_gain_[c] = static_cast<float>(-g * inverse_std * inverse_std * inverse_std *
                                          sum_dy_centered / m);
          offset_[c] = static_cast<float>(-g * inverse_std * sum_dy / m);
        }
      },
      [&](int64_t row, int64_t block) {
        const Coefficients<B> k(&gain_[block * B], &center_[block * B], &shift_[block * B]);
        const Vec<B> a = Load<B>(&dy_gain_[block * B]), b = Load<B>(&x_gain_[block * B]),
                     o = Load<B>(&offset_[block * B]);
        const float* x = src + row * row_floats;
        const float* dy = diff_dst + row * row_floats;
        float* dx = diff_src + row * row_floats;
        for (int64_t s = spatial; s-- > 0;) {  // backwards, as TwoPasses' apply order
          const Vec<B> xs = Load<B>(x + s * B);
          const Vec<B> d = passed(xs, Load<B>(dy + s * B), k);
          Store<B>(dx + s * B, a * d + b * (xs - k.center) + o, stream);
        }
      });
}

bool BatchNorm::StreamsTo(const float* out, const float* in) const {
  // In place, the line was just read: a plain store writes it back once, a streaming one would
  // evict it first.
  const int64_t bytes = problem_.num * blocks_ * problem_.spatial * block_ * 4;
  return bytes >= static_cast<int64_t>(kStreamBytes) && out != in &&
         reinterpret_cast<uintptr_t>(out) % 16 == 0;
}

void BatchNorm::Forward(const float* src, float* dst, float* mean, float* variance,
                        const float* scale, const float* shift) {
  if (block_ == 16) {
    ForwardBlocks<16>(src, dst, mean, variance, scale, shift);
  } else {
    ForwardBlocks<8>(src, dst, mean, variance, scale, shift);
  }
}

void BatchNorm::Backward(const float* src, const float*, const float* mean, const float* variance,
                         const float* scale, const float* diff_dst, float* diff_src,
                         float* diff_scale, float* diff_shift) {
  if (block_ == 16) {
    BackwardBlocks<16>(src, mean, variance, scale, diff_dst, diff_src, diff_scale, diff_shift);
  } else {
    BackwardBlocks<8>(src, mean, variance, scale, diff_dst, diff_src, diff_scale, diff_shift);
  }
}

}  // namespace dtrain::blocked
