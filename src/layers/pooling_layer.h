// Pooling: Caffe's "Pooling" layer, MAX or AVE over 2-D windows of each channel.
//
//   bottom (N, C, H, W) -> top (N, C, H_out, W_out) [, mask (N, C, H_out, W_out) for MAX]
//   H_out = ceil((H + 2 * pad_h - kernel_h) / stride_h) + 1 (round_mode CEIL, the default;
//   FLOOR rounds down); with padding, a last window starting beyond the image is dropped.
//
// STOCHASTIC (Caffe's, which Caffe runs only on GPUs; inputs non-negative, e.g. after a ReLU):
// in TRAIN each window outputs one element drawn with probability proportional to its value
// (the gradient goes to it), in TEST the weighted average sum(x^2) / sum(x); the draws come from
// the layer's seed.
// Parameters: pool (MAX, AVE, STOCHASTIC), kernel_size or kernel_h/kernel_w,
// stride or stride_h/stride_w (default 1), pad or pad_h/pad_w (default 0, must be < kernel),
// global_pooling (kernel = the whole H x W; no kernel, pad or stride may be set), round_mode.
// MAX may have a second top holding, as floats, the argmax index (h * W + w) within the channel.
// AVE divides by the window size clipped to the padded image (see kernels/pooling.h).
// No learnable parameters. Computed by the Pooling op's kernel (kernels/pooling.h). Not
// thread-safe.
#pragma once

#include <vector>

#include "kernels/pooling.h"
#include "layers/layer.h"

namespace dtrain {

class PoolingLayer : public Layer {
 public:
  PoolingLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Pooling"; }

  int ExactNumBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override;

  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

  // The window and method as read and checked at setup (for exporters: onnx/); global pooling's
  // window is the whole bottom.
  const kernels::Window2d& window() const { return problem_.shape.window; }
  kernels::PoolMethod method() const { return problem_.method; }
  bool global() const { return global_; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  bool global_ = false;
  bool round_up_ = true;

  kernels::PoolingProblem problem_;  // method and training set up once; shape per Reshape
  std::vector<float> uniforms_;      // STOCHASTIC, TRAIN: this forward's draws
  kernels::KernelChoice<kernels::PoolingKernel, kernels::PoolingProblem> kernel_;
};

}  // namespace dtrain
