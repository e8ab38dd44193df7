// Reference 2-D max and average pooling with Caffe's exact window semantics.
//
//   src (batch, channels, in_h, in_w)  ->  dst (batch, channels, out_h, out_w), NCHW float32.
//
// A window starts at (o * stride - pad) and spans `kernel` pixels, clipped to the image.
// Max: the largest value in the clipped window; `mask` records its index (h * in_w + w) within
// the channel's plane, the first one on ties, -1 for an empty window. Average: the sum over the
// clipped window divided by the window's size clipped to the padded image (so padding taps
// count as zeros, but taps beyond the padding do not), as Caffe does.
// Output sizes come from PooledSize (Caffe's rounding). Forward and backward overwrite their
// outputs; every buffer, the mask included, is the caller's. Stateless. Dilation is unused.
#pragma once

#include "kernels/reference/im2col.h"

namespace dtrain::reference {

struct PoolingShape {
  int batch = 1, channels = 1;
  int in_h = 1, in_w = 1;
  int out_h = 1, out_w = 1;
  Window2d window;

  bool operator==(const PoolingShape& o) const {
    return batch == o.batch && channels == o.channels && in_h == o.in_h && in_w == o.in_w &&
           out_h == o.out_h && out_w == o.out_w && window == o.window;
  }
};

// Caffe's pooled size along one axis: ceil (round_up) or floor of (in + 2 * pad - kernel) / stride,
// plus 1. When the window is padded on either axis (`padded`, as Caffe tests pad_h || pad_w), a
// last window that would start past the image, in the padding, is dropped.
int PooledSize(int in, int kernel, int pad, int stride, bool round_up, bool padded);

void MaxPoolForward(const PoolingShape& shape, const float* src, float* dst, int* mask);
// diff_src = diff_dst routed to the argmax recorded in mask.
void MaxPoolBackward(const PoolingShape& shape, const float* diff_dst, const int* mask,
                     float* diff_src);

void AvePoolForward(const PoolingShape& shape, const float* src, float* dst);
void AvePoolBackward(const PoolingShape& shape, const float* diff_dst, float* diff_src);

// Stochastic pooling (Zeiler & Fergus; Caffe's STOCHASTIC, which Caffe runs only on GPUs), for
// non-negative inputs (after a ReLU). Training: each window picks one element with probability
// proportional to its value, the first whose running sum reaches u * (window sum), with `u`
// one uniform draw in [0, 1) per output element (the last element when rounding leaves none);
// dst is that element and `mask` its index, so MaxPoolBackward routes the gradient to it.
void StochasticPoolForwardTrain(const PoolingShape& shape, const float* src, const float* u,
                                float* dst, int* mask);
// Testing: the probability-weighted average, sum(x^2) / sum(x), 0 where sum(x) <= 0.
void StochasticPoolForwardTest(const PoolingShape& shape, const float* src, float* dst);
// The gradient of the testing forward: (2 x sum(x) - sum(x^2)) / sum(x)^2 per element.
void StochasticPoolBackwardTest(const PoolingShape& shape, const float* src, const float* diff_dst,
                                float* diff_src);

}  // namespace dtrain::reference
