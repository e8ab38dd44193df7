// Window2d: a sliding window over the two spatial axes of an NCHW image (kernel extent, zero
// padding, stride and dilation per axis), as convolution, pooling and im2col describe it;
// SpatialAxis: one axis of a window over any number of spatial axes, with the sizes it slides
// from and to; and how many positions a window takes along one axis. Plain values; stateless.
#pragma once

namespace dtrain::kernels {

struct Window2d {
  int kernel_h = 1, kernel_w = 1;
  int pad_h = 0, pad_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;

  bool operator==(const Window2d& o) const {
    return kernel_h == o.kernel_h && kernel_w == o.kernel_w && pad_h == o.pad_h &&
           pad_w == o.pad_w && stride_h == o.stride_h && stride_w == o.stride_w &&
           dilation_h == o.dilation_h && dilation_w == o.dilation_w;
  }
  // Extent of the kernel once dilated: dilation * (kernel - 1) + 1.
  int DilatedKernelH() const { return dilation_h * (kernel_h - 1) + 1; }
  int DilatedKernelW() const { return dilation_w * (kernel_w - 1) + 1; }
  // A 1x1 window with unit stride and no padding: the column matrix is the image itself.
  bool IsPointwise() const {
    return kernel_h == 1 && kernel_w == 1 && pad_h == 0 && pad_w == 0 && stride_h == 1 &&
           stride_w == 1;
  }
};

// One spatial axis of a window over N spatial axes: the input size along it, the number of
// window positions (out) and the window's extent, zero padding, stride and dilation on it.
struct SpatialAxis {
  int in = 1, out = 1;
  int kernel = 1, pad = 0, stride = 1, dilation = 1;

  bool operator==(const SpatialAxis& o) const {
    return in == o.in && out == o.out && kernel == o.kernel && pad == o.pad && stride == o.stride &&
           dilation == o.dilation;
  }
};

// The most spatial axes a problem has: a Caffe blob holds at most 32 axes, two of them the batch
// and the channels.
constexpr int kMaxSpatialAxes = 30;

// Number of window positions along one axis, as convolution counts them (rounding down):
// (in + 2 * pad - dilated_kernel) / stride + 1; 0 when the kernel exceeds the padded input.
int ConvOutputSize(int in, int kernel, int pad, int stride, int dilation);

}  // namespace dtrain::kernels
