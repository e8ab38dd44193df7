// Reference 2-D pooling (kernels/pooling.h) with Caffe's exact window semantics: the functions,
// and Pooling, which runs them as the op's last implementation.
//
//   src (batch, channels, in_h, in_w)  ->  dst (batch, channels, out_h, out_w), NCHW float32.
//
// A window starts at (o * stride - pad) and spans `kernel` pixels, clipped to the image.
// Max: the largest value in the clipped window; `mask` records its index (h * in_w + w) within
// the channel's plane, the first one on ties, -1 for an empty window. Average: the sum over the
// clipped window divided by the window's size clipped to the padded image (so padding taps
// count as zeros, but taps beyond the padding do not), as Caffe does.
// Output sizes come from kernels::PooledSize (Caffe's rounding). Forward and backward overwrite
// their outputs; every buffer, the mask included, is the caller's. The functions are stateless;
// Pooling keeps the mask between its passes and is not thread-safe. Dilation is unused.
#pragma once

#include <memory>
#include <vector>

#include "kernels/pooling.h"

namespace dtrain::reference {

void MaxPoolForward(const kernels::PoolingShape& shape, const float* src, float* dst, int* mask);
// diff_src = diff_dst routed to the argmax recorded in mask.
void MaxPoolBackward(const kernels::PoolingShape& shape, const float* diff_dst, const int* mask,
                     float* diff_src);

void AvePoolForward(const kernels::PoolingShape& shape, const float* src, float* dst);
void AvePoolBackward(const kernels::PoolingShape& shape, const float* diff_dst, float* diff_src);

// Stochastic pooling (Zeiler & Fergus; Caffe's STOCHASTIC, which Caffe runs only on GPUs), for
// non-negative inputs (after a ReLU). Training: each window picks one element with probability
// proportional to its value, the first whose running sum reaches u * (window sum), with `u`
// one uniform draw in [0, 1) per output element (the last element when rounding leaves none);
// dst is that element and `mask` its index, so MaxPoolBackward routes the gradient to it.
void StochasticPoolForwardTrain(const kernels::PoolingShape& shape, const float* src,
                                const float* u, float* dst, int* mask);
// Testing: the probability-weighted average, sum(x^2) / sum(x), 0 where sum(x) <= 0.
void StochasticPoolForwardTest(const kernels::PoolingShape& shape, const float* src, float* dst);
// The gradient of the testing forward: (2 x sum(x) - sum(x^2)) / sum(x)^2 per element.
void StochasticPoolBackwardTest(const kernels::PoolingShape& shape, const float* src,
                                const float* diff_dst, float* diff_src);

// The op's reference kernel: takes every problem.
class Pooling : public kernels::PoolingKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::PoolingKernel>> Create(
      const kernels::PoolingProblem& problem, const kernels::KernelRequest& request);

  void Forward(const float* src, const float* uniforms, float* dst, float* argmax) override;
  void Backward(const float* src, const float* diff_dst, float* diff_src) override;

 private:
  explicit Pooling(const kernels::PoolingProblem& problem);
  // MAX, and STOCHASTIC when training: the gradient goes to the one element chosen.
  bool RoutesToChosen() const;

  kernels::PoolingProblem problem_;
  std::vector<int> mask_;  // the element chosen per dst element, when RoutesToChosen()
};

}  // namespace dtrain::reference
