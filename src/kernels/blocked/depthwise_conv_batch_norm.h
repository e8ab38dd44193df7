// A depthwise convolution (one filter per channel, 3x3 or 5x5, any stride and padding) with batch
// normalisation (batch statistics, scale, shift, optional ReLU) computed in its own passes: an
// implementation of kernels/conv_batch_norm.h in dtrain's loops on oneDNN's channel-blocked layout
// (nChw16c with AVX-512, else nChw8c), where one pixel of a channel block is one vector.
//
// Why: both layers are bound by memory traffic, and together they pass over the output more often
// than they need to. Forward computes y once, summing its statistics as it goes (the separate
// normalisation reads it once more for them), keeps it for backward (where the separate
// BatchNorm keeps its own copy), and writes dst from it. Backward sums the normalisation's terms
// over y and diff_dst, then makes one pass that reads them and x and writes diff_src: each output
// row's normalised gradient lives only in a ring of K rows in the cache, from which the weight
// gradient is summed and every input row of diff_src gathered once all its readers are in the
// ring (separately: the normalised gradient is written, then read by the data and again by the
// weight gradient). Both directions run chunk by chunk of channel blocks (8 MiB of each tensor both
// passes read a chunk where a block is that small) so that the second pass finds what the first
// read in the cache; tensors larger than the caches are written with non-temporal stores.
//
// At stride 1, where a channel block's x and diff_y with their margins fit in 512 KiB (a core's
// L2; up to about 56 x 56 pixels), both directions work plane by plane instead of through the
// ring: x is copied into a padded plane in the thread's buffers, each row just before the output
// first reads it, and backward makes the plane's diff_y into another, both with zero margins, so
// that no loop has an edge column or row (on 14- and 28-wide rows the edge loops and per-row
// setup cost as much as the rest), and the next plane's x is prefetched into L2 meanwhile
// (waiting for x's loads took a quarter of backward's second pass).
//
// Statistics and gradient sums: in float over about 256 pixels (whole rows, however long, where
// summed as rows are made), about a per-channel pivot (the first image's middle output pixel) for
// the variance, in double beyond, in a static order per thread count: reruns at one thread count
// are bit-identical. Declines other kernel sizes, dilation, a channel multiplier, fewer than 8
// channels and empty batches. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/conv_batch_norm.h"

namespace dtrain::blocked {

struct PaddedPlanes;

class DepthwiseConvBatchNorm : public kernels::ConvBatchNormKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::ConvBatchNormKernel>> Create(
      const kernels::ConvBatchNormProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override;
  kernels::KernelLayouts layouts() const override { return layouts_; }

  void Forward(const float* src, const float* weights, const float* scale, const float* shift,
               float* dst, float* mean, float* variance) override;
  void Backward(const float* src, const float* dst, float* diff_dst, const float* weights,
                const float* scale, float* diff_src, float* diff_weights, float* diff_scale,
                float* diff_shift) override;

 private:
  explicit DepthwiseConvBatchNorm(const kernels::ConvBatchNormProblem& problem);

  // f(integral_constant B, integral_constant K) for this kernel's block and window size.
  template <typename F>
  void Dispatch(F f) const;
  // Both directions' two passes, over chunks of channel blocks small enough that the second pass
  // finds in the cache what the first read (`tensors` tensors of y's size): first(plane, sums)
  // adds a plane's per_block sums (totals in sums_), middle(first_block, end_block) turns the
  // chunk's totals into coefficients, second(count, plane_of) runs over the chunk's planes
  // plane_of(i), i < batch x count.
  template <typename First, typename Middle, typename Second>
  void ChunkedPasses(int tensors, int64_t per_block, First first, Middle middle, Second second);
  template <int B, int K>
  void ForwardBlocks(const float* src, const float* weights, const float* scale, const float* shift,
                     float* dst, float* mean, float* variance);
  template <int B, int K>
  void BackwardBlocks(const float* src, const float* diff_dst, const float* scale, float* diff_src,
                      float* diff_weights, float* diff_scale, float* diff_shift);
  // Thread `thread`'s buffers: a ring of K output rows (forward: its first, one row), or with
  // whole_planes_ the padded x and diff_y planes (Padded), then K x K weight-gradient sums; grown
  // (outside parallel regions) to the thread count.
  size_t ThreadFloats() const;
  void GrowThreadBuffers();
  float* ThreadBuffers(int thread);
  // With whole_planes_: the padded x and diff_y planes in a thread's buffers.
  PaddedPlanes Padded(float* buffers) const;

  kernels::ConvBatchNormProblem problem_;
  int block_, kernel_;
  int64_t blocks_;
  kernels::KernelLayouts layouts_;
  std::vector<float> weights_;  // blocks x K x K x block, padding lanes 0
  std::vector<float> y_;        // the forward's y, blocked, kept for the passes after it
  // Forward's coefficients per padded channel, dst = relu(gain * (y - center) + shift); center is
  // the pivot during the statistics' pass, then the mean. Padding channels: all 0.
  std::vector<float> gain_, center_, shift_;
  std::vector<double> inv_std_;
  // Backward's: diff_y = dy_gain * diff + x_gain * (y - mean) + offset.
  std::vector<float> dy_gain_, x_gain_, offset_;
  std::vector<double> partial_, sums_;  // the threads' sums and the first passes' totals
  std::vector<double> weight_sums_;     // the weight gradient's totals, blocked
  std::vector<float> buffers_;          // the threads' rows (ThreadBuffers)
  std::vector<float> zeros_;            // a row of zeros, as long as the longer of x's and y's
  // Backward plane by plane (stride 1, small planes): the padded planes' row lengths and floats.
  bool whole_planes_ = false;
  int64_t padded_x_w_ = 0, padded_dy_w_ = 0, padded_floats_ = 0;
};

}  // namespace dtrain::blocked
