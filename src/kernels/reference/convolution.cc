#include "kernels/reference/convolution.h"

#include <climits>
#include <string>

#include "core/machine_memory.h"
#include "kernels/reference/gemm.h"

namespace dtrain::reference {
namespace {

// Per-group matrix sizes of the lowered problem: dst_g (m x n) = weights_g (m x k) * col_g (k x n).
struct GroupDims {
  int m;                         // output channels per group
  int n;                         // output pixels
  int k;                         // input channels per group * kernel taps
  int64_t src_image, dst_image;  // floats per image
};

GroupDims Dims(const kernels::ConvolutionShape& s) {
  GroupDims d;
  d.m = s.out_channels / s.groups;
  d.n = static_cast<int>(s.OutPixels());
  d.k = static_cast<int>(s.in_channels / s.groups * s.KernelTaps());
  d.src_image = s.in_channels * s.InPixels();
  d.dst_image = static_cast<int64_t>(s.out_channels) * d.n;
  return d;
}

// The lowering of one image and its adjoint, over the shape's two or more spatial axes.
void Lower(const kernels::ConvolutionShape& s, const float* src, float* col) {
  if (s.leading.empty()) return Im2Col(src, s.in_channels, s.in_h, s.in_w, s.window, col);
  kernels::SpatialAxis axes[kernels::kMaxSpatialAxes];
  for (int i = 0; i < s.spatial_axes(); ++i) axes[i] = s.axis(i);
  Im2ColNd(src, s.in_channels, axes, s.spatial_axes(), col);
}

void Raise(const kernels::ConvolutionShape& s, const float* col, float* dst) {
  if (s.leading.empty()) return Col2Im(col, s.in_channels, s.in_h, s.in_w, s.window, dst);
  kernels::SpatialAxis axes[kernels::kMaxSpatialAxes];
  for (int i = 0; i < s.spatial_axes(); ++i) axes[i] = s.axis(i);
  Col2ImNd(col, s.in_channels, axes, s.spatial_axes(), dst);
}

}  // namespace

int64_t ColumnBufferSize(const kernels::ConvolutionShape& s) {
  if (s.IsPointwise()) return 0;
  return s.in_channels * s.KernelTaps() * s.OutPixels();
}

Status CheckLowering(const kernels::ConvolutionShape& s) {
  const int64_t floats = ColumnBufferSize(s);
  if (floats > MachineMemoryBytes() / static_cast<int64_t>(sizeof(float))) {
    return InvalidArgument(
        "the reference convolution's column matrix of " + std::to_string(floats) + " values (" +
        ByteSize(4.0 * static_cast<double>(floats)) + ") is larger than this machine's memory (" +
        ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
  }
  const int64_t rows = s.in_channels / s.groups * s.KernelTaps();
  if (s.OutPixels() > INT_MAX || s.InPixels() > INT_MAX || rows > INT_MAX) {
    return InvalidArgument("the reference convolution's matrix of " + std::to_string(rows) + " x " +
                           std::to_string(s.OutPixels()) + " has a dimension beyond 2147483647");
  }
  return Status::Ok();
}

void ConvolutionForward(const kernels::ConvolutionShape& s, const float* src, const float* weights,
                        float* dst, float* col) {
  const GroupDims d = Dims(s);
  for (int i = 0; i < s.batch; ++i) {
    const float* src_i = src + i * d.src_image;
    const float* cols = src_i;
    if (!s.IsPointwise()) {
      Lower(s, src_i, col);
      cols = col;
    }
    for (int g = 0; g < s.groups; ++g) {
      Gemm(false, false, d.m, d.n, d.k, 1.f, weights + static_cast<int64_t>(g) * d.m * d.k,
           cols + static_cast<int64_t>(g) * d.k * d.n, 0.f,
           dst + i * d.dst_image + static_cast<int64_t>(g) * d.m * d.n);
    }
  }
}

void ConvolutionBackwardData(const kernels::ConvolutionShape& s, const float* diff_dst,
                             const float* weights, float* diff_src, float* col) {
  const GroupDims d = Dims(s);
  for (int i = 0; i < s.batch; ++i) {
    float* diff_src_i = diff_src + i * d.src_image;
    // col_g (k x n) = weights_g^T (k x m) * diff_dst_g (m x n), then scattered back to pixels.
    float* cols = s.IsPointwise() ? diff_src_i : col;
    for (int g = 0; g < s.groups; ++g) {
      Gemm(true, false, d.k, d.n, d.m, 1.f, weights + static_cast<int64_t>(g) * d.m * d.k,
           diff_dst + i * d.dst_image + static_cast<int64_t>(g) * d.m * d.n, 0.f,
           cols + static_cast<int64_t>(g) * d.k * d.n);
    }
    if (!s.IsPointwise()) Raise(s, col, diff_src_i);
  }
}

void ConvolutionBackwardWeights(const kernels::ConvolutionShape& s, const float* src,
                                const float* diff_dst, float* diff_weights, float* col) {
  const GroupDims d = Dims(s);
  for (int i = 0; i < s.batch; ++i) {
    const float* src_i = src + i * d.src_image;
    const float* cols = src_i;
    if (!s.IsPointwise()) {
      Lower(s, src_i, col);
      cols = col;
    }
    // diff_weights_g (m x k) += diff_dst_g (m x n) * col_g^T (n x k).
    for (int g = 0; g < s.groups; ++g) {
      Gemm(false, true, d.m, d.k, d.n, 1.f,
           diff_dst + i * d.dst_image + static_cast<int64_t>(g) * d.m * d.n,
           cols + static_cast<int64_t>(g) * d.k * d.n, 1.f,
           diff_weights + static_cast<int64_t>(g) * d.m * d.k);
    }
  }
}

void BiasForward(int batch, int channels, int spatial, const float* bias, float* dst) {
  for (int i = 0; i < batch; ++i) {
    for (int c = 0; c < channels; ++c) {
      const float b = bias[c];
      for (int j = 0; j < spatial; ++j) *dst++ += b;
    }
  }
}

void BiasBackward(int batch, int channels, int spatial, const float* diff_dst, float* diff_bias) {
  for (int i = 0; i < batch; ++i) {
    for (int c = 0; c < channels; ++c) {
      double sum = 0;
      for (int j = 0; j < spatial; ++j) sum += *diff_dst++;
      diff_bias[c] += static_cast<float>(sum);
    }
  }
}

StatusOr<std::unique_ptr<kernels::LinearKernel>> Convolution::Create(
    const kernels::ConvolutionProblem& problem, const kernels::KernelRequest&) {
  DT_RETURN_IF_ERROR(CheckLowering(problem.shape));
  return std::unique_ptr<kernels::LinearKernel>(new Convolution(problem.shape));
}

Convolution::Convolution(const kernels::ConvolutionShape& shape)
    : shape_(shape), col_(ColumnBufferSize(shape)) {}

void Convolution::Forward(const float* src, const float* weights, const float* bias, float* dst) {
  ConvolutionForward(shape_, src, weights, dst, col_.data());
  if (bias) {
    BiasForward(shape_.batch, shape_.out_channels, static_cast<int>(shape_.OutPixels()), bias, dst);
  }
}

void Convolution::Backward(const float* src, const float* diff_dst, const float* weights,
                           float* diff_src, float* diff_weights, float* diff_bias) {
  const int spatial = static_cast<int>(shape_.OutPixels());
  if (diff_bias) BiasBackward(shape_.batch, shape_.out_channels, spatial, diff_dst, diff_bias);
  if (diff_weights) ConvolutionBackwardWeights(shape_, src, diff_dst, diff_weights, col_.data());
  if (diff_src) ConvolutionBackwardData(shape_, diff_dst, weights, diff_src, col_.data());
}

}  // namespace dtrain::reference
