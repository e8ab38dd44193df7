// Pooling, the op: MAX, AVE or STOCHASTIC over 2-D windows of each channel, with Caffe's exact
// window semantics; its problem and its implementation list.
//
//   src (batch, channels, in_h, in_w)  ->  dst (batch, channels, out_h, out_w), NCHW float32.
//
// A window starts at (o * stride - pad) and spans `kernel` pixels, clipped to the image; output
// sizes come from PooledSize (Caffe's rounding). MAX takes the largest value (the first on ties);
// AVE divides the clipped window's sum by its size clipped to the padded image; STOCHASTIC
// (inputs non-negative) picks one element per window with probability proportional to its value
// when training, and takes the weighted average sum(x^2) / sum(x) otherwise (see
// kernels/reference/pooling.h). Dilation is unused.
//
// Implementations, in order: oneDNN (kernels/onednn/pooling.h: MAX and AVE, with AVX-512 or when
// the ONEDNN engine is asked for, see docs/engines.md), dtrain's blocked loops on oneDNN's
// channel-blocked layout (kernels/blocked/pooling.h: MAX and AVE; they serve the ONEDNN engine),
// the reference loops.
#pragma once

#include <memory>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/window.h"

namespace dtrain::kernels {

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

enum class PoolMethod { kMax, kAverage, kStochastic };

struct PoolingProblem {
  PoolingShape shape;
  PoolMethod method = PoolMethod::kMax;
  bool training = true;     // STOCHASTIC draws (else the weighted average)
  bool argmax_top = false;  // MAX: Forward also outputs each window's argmax
  bool operator==(const PoolingProblem& o) const {
    return shape == o.shape && method == o.method && training == o.training &&
           argmax_top == o.argmax_top;
  }
};

// Caffe's pooled size along one axis: ceil (round_up) or floor of (in + 2 * pad - kernel) / stride,
// plus 1. When the window is padded on either axis (`padded`, as Caffe tests pad_h || pad_w), a
// last window that would start past the image, in the padding, is dropped.
int PooledSize(int in, int kernel, int pad, int stride, bool round_up, bool padded);

// Output position `o`'s window along one axis: the taps [start, end) clipped to the image, and
// `padded_extent`, the window clipped to the padded image instead (AVE's divisor along the axis).
struct PoolSpan {
  int start, end, padded_extent;
};
PoolSpan PoolingWindow(int o, int in, int kernel, int pad, int stride);

class PoolingKernel : public Kernel {
 public:
  // `uniforms`: STOCHASTIC when training, one draw in [0, 1) per dst element (else unused).
  // `argmax`: when the problem asks for it, each window's argmax (h * in_w + w within its
  // channel plane, -1 for an empty window) as floats.
  virtual void Forward(const float* src, const float* uniforms, float* dst, float* argmax) = 0;
  // diff_src (overwritten) after the forward pass of the same src.
  virtual void Backward(const float* src, const float* diff_dst, float* diff_src) = 0;
};

StatusOr<std::unique_ptr<PoolingKernel>> ChooseKernel(const PoolingProblem& problem,
                                                      const KernelRequest& request,
                                                      std::string* report);

}  // namespace dtrain::kernels
