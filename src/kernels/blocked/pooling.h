// MAX and AVE pooling in dtrain's own loops over oneDNN's channel-blocked layout (nChw16c with
// AVX-512, else nChw8c: the layout of the oneDNN convolutions around it), an implementation of
// kernels/pooling.h.
//
// Why: without AVX-512 oneDNN 2.6's pooling was slower than the reference loops, and those run on
// plain NCHW, so every convolution's blocked output was relaid for them and back (docs/engines.md).
// In the blocked layout a pixel's channel block is one vector, so a window is a handful of vector
// loads and nothing needs gathering, whatever the kernel, stride and padding.
//
// Exactly the reference's results (kernels/reference/pooling.h), bit for bit: each channel visits
// its window's taps in the same row-major order (MAX keeps the first largest, strictly greater
// replacing; AVE sums in that order and divides by the same divisor), and backward adds each
// output's gradient to its taps in output order. MAX remembers the chosen tap per output element
// (one byte), so it declines windows of more than 254 taps; it declines STOCHASTIC, the argmax
// top, and fewer than 8 channels (the blocks would be mostly padding). Padding channels of dst
// and diff_src are written as zeros. Planes (an image's channel block) are computed whole by one
// thread: results do not depend on the thread count. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/blocked/channel_lanes.h"
#include "kernels/pooling.h"

namespace dtrain::blocked {

class Pooling : public kernels::PoolingKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::PoolingKernel>> Create(
      const kernels::PoolingProblem& problem, const kernels::KernelRequest& request);
  // The same on blocks of `block` (8 or 16) channels whatever the CPU, for tests of both.
  static StatusOr<std::unique_ptr<kernels::PoolingKernel>> CreateWithBlock(
      const kernels::PoolingProblem& problem, int block);
  std::string implementation() const override;
  kernels::KernelLayouts layouts() const override { return layouts_; }

  void Forward(const float* src, const float* uniforms, float* dst, float* argmax) override;
  // MAX needs the forward pass just before (the chosen taps).
  void Backward(const float* src, const float* diff_dst, float* diff_src) override;

 private:
  Pooling(const kernels::PoolingProblem& problem, int block);

  template <int B>
  void MaxForward(const float* src, float* dst);
  template <int B>
  void MaxBackward(const float* diff_dst, float* diff_src);
  template <int B>
  void AveForward(const float* src, float* dst);
  template <int B>
  void AveBackward(const float* diff_dst, float* diff_src);
  // Backward's update of one diff_src pixel: += add, or = 0 + add where the windows tile the
  // image (each pixel in exactly one window), whose diff_src is not zeroed first.
  template <int B>
  void Accumulate(float* to, Vec<B> add) const;
  // Zeros the padding channels of `data`, plane `plane` of `pixels` pixels, if it is an image's
  // last channel block and that is partly filled.
  template <int B>
  void ZeroPaddingChannels(int64_t plane, float* data, int64_t pixels) const;

  kernels::PoolingProblem problem_;
  int block_;       // channels per block: 16 or 8
  int64_t blocks_;  // channel blocks (channels rounded up to whole blocks)
  kernels::KernelLayouts layouts_;
  std::vector<kernels::PoolSpan> rows_, cols_;  // each output row's and column's window
  std::vector<uint8_t> taps_;                   // MAX: each dst element's chosen tap
  bool tiled_ = false;  // the windows are disjoint and cover the image (LeNet's 2x2, stride 2)
};

}  // namespace dtrain::blocked
