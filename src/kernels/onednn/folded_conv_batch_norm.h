// A 1x1 convolution with batch normalisation (batch statistics, scale, shift, optional ReLU)
// folded into it: an implementation of kernels/conv_batch_norm.h on oneDNN's channel-blocked
// layout (nChw16c with AVX-512, else nChw8c).
//
// Why: separately, the normalisation reads the convolution's output twice and writes it once in
// the forward pass and reads it four times in backward, and that output is the wide one where
// the convolution expands channels (MobileNet v2's expansions: 6x). A 1x1 convolution is linear
// in its input, so the statistics of y = W x follow from the input's: mean_c = w_c . mean(x) and
// var_c = w_c' Cov(x) w_c, with Cov(x) (in x in channels squared) a small convolution's weight
// gradient over the narrow input. The forward pass then runs one convolution with the
// normalisation folded into its weights and bias (scale_c / sqrt(var_c + eps) times row c) and
// the ReLU as a post-op: the output is written once and never read again in forward. Backward
// gets the batch-norm terms from the same kind of sums: with G the diff through the ReLU's mask,
// the convolution's weight-gradient pass over G gives sum(G) and sum(G x'), from which the scale's
// and shift's gradients, the corrected weight gradient and a Cin x Cin correction of diff_src
// (one more small convolution over x) follow, in closed form.
//
// x is centred (x - mean(x), kept from forward to backward) before any product is summed, so that
// inputs far from zero lose no precision. The cost is about in_channels^2 multiply-adds per pixel
// in each direction; the Convolution layer folds only where that is well below what the passes
// over the out_channels-wide output cost (layers/convolution_layer.cc). Declines what is not 2-D,
// an empty batch, and inputs of fewer than 8 channels. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/conv_batch_norm.h"
#include "kernels/onednn/common.h"
#include "kernels/onednn/weighted_passes.h"

namespace dtrain::onednn {

class FoldedConvBatchNorm : public kernels::ConvBatchNormKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::ConvBatchNormKernel>> Create(
      const kernels::ConvBatchNormProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override { return implementation_; }
  kernels::KernelLayouts layouts() const override { return layouts_; }

  void Forward(const float* src, const float* weights, const float* scale, const float* shift,
               float* dst, float* mean, float* variance) override;
  void Backward(const float* src, const float* dst, float* diff_dst, const float* weights,
                const float* scale, float* diff_src, float* diff_weights, float* diff_scale,
                float* diff_shift) override;

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  FoldedConvBatchNorm() = default;
  Status Init(const kernels::ConvBatchNormProblem& problem, Scratch* scratch);

  // centered_ = src - its per-channel mean (mean_x_), padding lanes 0.
  void Center(const float* src);
  template <int B>
  void CenterBlocks(const float* src);
  // With the ReLU, diff_dst *= (dst > 0); then diff_sum_ = its sum per channel.
  void MaskAndSum(const float* dst, float* diff_dst);
  template <int B>
  void MaskAndSumBlocks(const float* dst, float* diff_dst);

  kernels::ConvBatchNormProblem problem_;
  int block_ = 16;
  int64_t in_blocks_ = 0, out_blocks_ = 0, pixels_ = 0;  // pixels: height x width
  double count_ = 0;                                     // values per channel: batch x pixels
  CpuContext context_;
  ScratchRef scratch_{nullptr};
  std::string implementation_;
  kernels::KernelLayouts layouts_;
  // conv_: in -> out channels with bias (the folded normalisation) and the ReLU post-op. moments_:
  // in -> in channels, no activation; its weight gradient over (centered, centered) is the
  // input's scatter matrix, its forward adds backward's correction to diff_src (a sum post-op).
  WeightedPasses conv_, moments_;

  // Kept from forward for backward.
  std::vector<float> centered_;   // the blocked src minus its mean
  std::vector<double> mean_x_;    // that mean, per input channel
  std::vector<float> scatter_;    // S = sum x' x' over the batch's pixels, in x in
  std::vector<float> scattered_;  // W S, out x in
  std::vector<double> inv_std_;   // 1 / sqrt(var_c + eps)
  std::vector<float> folded_weights_, folded_bias_;
  // Backward's sums: P (out x in) and s1 (out), then C = W' weighted_ and k.
  std::vector<float> sums_out_, weighted_, correction_, correction_bias_;
  std::vector<double> diff_sum_, diff_x_bias_;
  // Per padded input lane: the mean subtracted, and 1 where the lane holds a channel (else 0).
  std::vector<float> center_, valid_;
  std::vector<double> partial_;  // the threads' per-channel sums in SumOverRows
};

}  // namespace dtrain::onednn
