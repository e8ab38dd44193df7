// Batch normalisation with batch statistics in dtrain's own loops over oneDNN's channel-blocked
// layout (nChw16c with AVX-512, else nChw8c: the layout the oneDNN kernels around it use), an
// implementation of kernels/batch_norm.h with scale, shift and ReLU fused as that header says.
//
// Why not oneDNN's: the op is bound by memory traffic, and oneDNN 2.6 reads the input three times
// in the forward pass (mean, then variance, then normalising). Here the forward pass reads it
// twice (the sum and the sum of squares in one pass, about a per-channel pivot so that large means
// lose no precision; then normalising) and the backward pass reads src and diff_dst twice and
// writes diff_src once. Both passes run chunk by chunk of channel blocks (8 MiB of input a
// chunk where a block is that small), the second backwards over each thread's rows, so that it
// finds what the first read last still in the cache; tensors larger than the caches are written
// with non-temporal stores (not in place). Measured on MobileNet v2 and ResNet-50 in
// bench/README.md; on inputs far from zero it is also the more accurate one
// (tests/net/fusion_test.cc). The ReLU's mask is not stored: backward recomputes it
// from src with the forward's own coefficients.
//
// Sums run per row (one image's block of channels) in float, across rows in double, in a static
// order per thread count: reruns at the same thread count are bit-identical. Declines global
// statistics (oneDNN's kernel, next in the list, takes them), fewer than 8 channels, and empty
// batches. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/batch_norm.h"

namespace dtrain::blocked {

class BatchNorm : public kernels::BatchNormKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::BatchNormKernel>> Create(
      const kernels::BatchNormProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override;
  kernels::KernelLayouts layouts() const override { return layouts_; }

  void Forward(const float* src, float* dst, float* mean, float* variance, const float* scale,
               const float* shift) override;
  void Backward(const float* src, const float* dst, const float* mean, const float* variance,
                const float* scale, const float* diff_dst, float* diff_src, float* diff_scale,
                float* diff_shift) override;

 private:
  BatchNorm(const kernels::BatchNormProblem& problem, int block);

  // The two passes of either direction, over chunks of channel blocks that fit the cache:
  // reduce_row(row, block, sums) adds a row's two sums per channel (row: an image's block),
  // coefficients(first, end) turns the chunk's channels' sums_ into what apply_row(row, block)
  // needs. `tensors`: how many tensors the passes read.
  template <typename ReduceRow, typename MakeCoefficients, typename ApplyRow>
  void TwoPasses(int tensors, ReduceRow reduce_row, MakeCoefficients coefficients,
                 ApplyRow apply_row);
  template <int B>
  void ForwardBlocks(const float* src, float* dst, float* mean, float* variance, const float* scale,
                     const float* shift);
  template <int B>
  void BackwardBlocks(const float* src, const float* mean, const float* variance,
                      const float* scale, const float* diff_dst, float* diff_src, float* diff_scale,
                      float* diff_shift);
  // Whether writing `out` (read from `in`) should bypass the caches.
  bool StreamsTo(const float* out, const float* in) const;

  kernels::BatchNormProblem problem_;
  int block_;       // channels per block: 16 or 8
  int64_t blocks_;  // channel blocks (channels rounded up to whole blocks)
  kernels::KernelLayouts layouts_;
  // The forward's coefficients per padded channel, dst = relu(gain * (src - center) + shift),
  // which backward needs for the ReLU's mask (padding channels: all zero, so dst stays 0 there).
  std::vector<float> gain_, center_, shift_;
  // Backward's coefficients: diff_src = dy_gain * diff + x_gain * (src - mean) + offset.
  std::vector<float> dy_gain_, x_gain_, offset_;
  std::vector<double> partial_;  // each thread's sums, threads x padded channels x 2
  std::vector<double> sums_;     // their total
};

}  // namespace dtrain::blocked
