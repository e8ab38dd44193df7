#include "kernels/onednn/folded_conv_batch_norm.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "kernels/blocked/channel_lanes.h"
#include "kernels/blocked/row_sums.h"
#include "kernels/onednn/memory_layout.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::convolution_backward_data;
using dnnl::convolution_backward_weights;
using dnnl::convolution_forward;
using dnnl::memory;
using dnnl::prop_kind;
// The statistics over the convolution's output run on dtrain's vector loops (kernels/blocked/).
using blocked::ForRows;
using blocked::Load;
using blocked::StoreTo;
using blocked::SumOverRows;
using blocked::Vec;

namespace {

// A post-op list of one ReLU (slope 0), or of one sum into dst (dst += the primitive's result).
dnnl::post_ops ReluPostOp() {
  dnnl::post_ops ops;
#if DTRAIN_ONEDNN3
  ops.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
#else
  ops.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
#endif
  return ops;
}
dnnl::post_ops SumPostOp() {
  dnnl::post_ops ops;
  ops.append_sum(1.f);
  return ops;
}

// The three primitives of one 1x1 convolution between two blocked layouts, `attr`'s post-ops on
// its forward pass, set up in `passes` (user layouts: the blocked ones, plain weights and bias).
void SetUp1x1(const CpuContext& context, Scratch* scratch, const memory::desc& src,
              const memory::desc& dst, const dnnl::post_ops& post_ops, WeightedPasses* passes,
              std::string* implementation) {
  const Dims src_dims = DimsOf(src), dst_dims = DimsOf(dst);
  const Dims weight_dims = {dst_dims[1], src_dims[1], 1, 1};
  const memory::desc weights(weight_dims, memory::data_type::f32, memory::format_tag::any);
  const memory::desc bias = PlainDesc({dst_dims[1]});
  const Dims stride = {1, 1}, dilation = {0, 0}, pad = {0, 0};
  dnnl::primitive_attr forward_attr = UserScratchpad();
  forward_attr.set_post_ops(post_ops);
  const auto forward = ForwardDesc<convolution_forward>(
      context, forward_attr, prop_kind::forward_training, algorithm::convolution_direct, src,
      weights, bias, dst, stride, dilation, pad, pad);
  const dnnl::primitive_attr attr = UserScratchpad();
  const auto data =
      BackwardDesc<convolution_backward_data>(context, attr, forward, algorithm::convolution_direct,
                                              src, weights, dst, stride, dilation, pad, pad);
  // No bias gradient: oneDNN's took as long again as the weight gradient (16 -> 96 channels at
  // 112 x 112: 12-13 against 7 ms); the kernel sums diff_dst itself in a pass it makes anyway.
  const auto weights_pd = BackwardDesc<convolution_backward_weights>(
      context, attr, forward, algorithm::convolution_direct, src, weights, memory::desc(), dst,
      stride, dilation, pad, pad);
  const UserLayouts user = {src, PlainDesc(weight_dims), dst, bias};
  passes->SetForward(context, scratch, user, forward);
  passes->SetBackward(context, scratch, user, data, weights_pd);
  *implementation = forward.impl_info_str();
}

// c (m x n) = a (m x k, or k x m read transposed) b (k x n), all dense row-major: oneDNN's sgemm,
// which runs on the same OpenMP threads as the primitives (OpenBLAS's own threads, still spinning
// after a call, held up the oneDNN passes that followed).
void Gemm(bool transpose_a, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
          float* c) {
  const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', 'N', m, n, k, 1.f, a,
                                          transpose_a ? m : k, b, n, 0.f, c, n);
  DT_CHECK(status == dnnl_success);
}

}  // namespace

StatusOr<std::unique_ptr<kernels::ConvBatchNormKernel>> FoldedConvBatchNorm::Create(
    const kernels::ConvBatchNormProblem& problem, const kernels::KernelRequest& request) {
  const kernels::ConvolutionShape& shape = problem.shape;
  if (!shape.leading.empty()) return Unsupported("more than two spatial axes");
  if (!shape.window.IsPointwise() || shape.groups != 1 || shape.window.dilation_h != 1 ||
      shape.window.dilation_w != 1) {
    return Unsupported("not a 1x1 convolution of one group");
  }
  if (shape.in_channels < 8) return Unsupported("fewer than 8 input channels");
  if (int64_t{shape.batch} * shape.in_h * shape.in_w == 0) return Unsupported("an empty batch");
  return CreateKernel<kernels::ConvBatchNormKernel, FoldedConvBatchNorm>(
      "folded convolution and batch normalisation", problem, request.scratch);
}

Status FoldedConvBatchNorm::Init(const kernels::ConvBatchNormProblem& p, Scratch* scratch) {
  problem_ = p;
  scratch_ = ScratchRef(scratch);
  block_ = BlocksOf16Channels() ? 16 : 8;
  in_blocks_ = (p.shape.in_channels + block_ - 1) / block_;
  out_blocks_ = (p.shape.out_channels + block_ - 1) / block_;
  pixels_ = int64_t{p.shape.in_h} * p.shape.in_w;
  count_ = static_cast<double>(p.shape.batch) * static_cast<double>(pixels_);
  const memory::desc in =
      BlockedDesc4d({p.shape.batch, p.shape.in_channels, p.shape.in_h, p.shape.in_w});
  const memory::desc out =
      BlockedDesc4d({p.shape.batch, p.shape.out_channels, p.shape.in_h, p.shape.in_w});
  SetUp1x1(context_, scratch_.get(), in, out, p.relu ? ReluPostOp() : dnnl::post_ops(), &conv_,
           &implementation_);
  std::string moments_implementation;
  SetUp1x1(context_, scratch_.get(), in, in, SumPostOp(), &moments_, &moments_implementation);
  layouts_ = {LayoutFor(context_, in), LayoutFor(context_, out)};
  implementation_ = "folded " + implementation_;

  const size_t cin = static_cast<size_t>(p.shape.in_channels),
               cout = static_cast<size_t>(p.shape.out_channels);
  centered_.assign(in.get_size() / sizeof(float), 0.f);
  mean_x_.assign(cin, 0.0);
  scatter_.assign(cin * cin, 0.f);
  scattered_.assign(cout * cin, 0.f);
  weighted_.assign(cout * cin, 0.f);
  inv_std_.assign(cout, 0.0);
  folded_weights_.assign(cout * cin, 0.f);
  folded_bias_.assign(cout, 0.f);
  sums_out_.assign(cout * cin, 0.f);
  diff_sum_.assign(cout, 0.0);
  correction_.assign(cin * cin, 0.f);
  correction_bias_.assign(cin, 0.f);
  diff_x_bias_.assign(cin, 0.0);
  const size_t padded_in = static_cast<size_t>(in_blocks_ * block_);
  center_.assign(padded_in, 0.f);
  valid_.assign(padded_in, 0.f);
  std::fill(valid_.begin(), valid_.begin() + p.shape.in_channels, 1.f);
  return Status::Ok();
}

// Row `row` (an image's channel block) of `src`: its per-lane sums added to `sums` (float over
// 256 pixels, double beyond).
template <int B>
static void AddRowSums(const float* row, int64_t pixels, double* sums) {
  for (int64_t start = 0; start < pixels; start += 256) {
    Vec<B> lanes = {};
    const int64_t end = std::min(pixels, start + 256);
    for (int64_t pixel = start; pixel < end; ++pixel) lanes += Load<B>(row + pixel * B);
    for (int i = 0; i < B; ++i) sums[i] += lanes[i];
  }
}

// out = row - center on the lanes that hold channels (valid != 0), 0 on the padding.
template <int B>
static void CenterRow(const float* row, int64_t pixels, const float* center, const float* valid,
                      float* out) {
  const Vec<B> c = Load<B>(center), keep = Load<B>(valid), zero = {};
  for (int64_t pixel = 0; pixel < pixels; ++pixel) {
    StoreTo<B>(out + pixel * B, keep != zero ? Load<B>(row + pixel * B) - c : zero);
  }
}

template <int B>
void FoldedConvBatchNorm::CenterBlocks(const float* src) {
  const int64_t rows = problem_.shape.batch * in_blocks_, row_floats = pixels_ * B;
  SumOverRows(
      rows, in_blocks_, B, problem_.shape.in_channels,
      [&](int64_t row, double* sums) { AddRowSums<B>(src + row * row_floats, pixels_, sums); },
      &partial_, mean_x_.data());
  for (int64_t c = 0; c < problem_.shape.in_channels; ++c) {
    mean_x_[c] /= count_;
    center_[c] = static_cast<float>(mean_x_[c]);
  }
  ForRows(rows, [&](int64_t row) {
    const int64_t first = (row % in_blocks_) * B;
    CenterRow<B>(src + row * row_floats, pixels_, center_.data() + first, valid_.data() + first,
                 centered_.data() + row * row_floats);
  });
}

// A row of diff_dst: zeroed where dst is not positive (with the ReLU), and its per-lane sums
// added to `sums` (float over 256 pixels, double beyond).
template <int B>
static void MaskAndSumRow(const float* dst, float* diff, int64_t pixels, bool relu, double* sums) {
  const Vec<B> zero = {};
  for (int64_t start = 0; start < pixels; start += 256) {
    Vec<B> lanes = {};
    const int64_t end = std::min(pixels, start + 256);
    for (int64_t pixel = start; pixel < end; ++pixel) {
      Vec<B> g = Load<B>(diff + pixel * B);
      if (relu) {
        g = Load<B>(dst + pixel * B) > zero ? g : zero;
        StoreTo<B>(diff + pixel * B, g);
      }
      lanes += g;
    }
    for (int i = 0; i < B; ++i) sums[i] += lanes[i];
  }
}

template <int B>
void FoldedConvBatchNorm::MaskAndSumBlocks(const float* dst, float* diff_dst) {
  const int64_t rows = problem_.shape.batch * out_blocks_, row_floats = pixels_ * B;
  SumOverRows(
      rows, out_blocks_, B, problem_.shape.out_channels,
      [&](int64_t row, double* sums) {
        MaskAndSumRow<B>(dst + row * row_floats, diff_dst + row * row_floats, pixels_,
                         problem_.relu, sums);
      },
      &partial_, diff_sum_.data());
}

void FoldedConvBatchNorm::Center(const float* src) {
  if (block_ == 16) {
    CenterBlocks<16>(src);
  } else {
    CenterBlocks<8>(src);
  }
}

void FoldedConvBatchNorm::Forward(const float* src, const float* weights, const float* scale,
                                  const float* shift, float* dst, float* mean, float* variance) {
  const int64_t cin = problem_.shape.in_channels, cout = problem_.shape.out_channels;
  Center(src);
  // scatter_ = sum over pixels of centered x x', the weight gradient of an in -> in convolution
  // whose output gradient is its input.
  std::fill(scatter_.begin(), scatter_.end(), 0.f);
  moments_.Backward(context_, centered_.data(), centered_.data(), scatter_.data(), nullptr,
                    scatter_.data(), nullptr);
  // scattered_ row c = S w_c (S symmetric): W S.
  Gemm(false, cout, cin, cin, weights, scatter_.data(), scattered_.data());
  for (int64_t c = 0; c < cout; ++c) {
    const float* w = weights + c * cin;
    const float* sw = scattered_.data() + c * cin;
    double m = 0.0, v = 0.0;
    for (int64_t i = 0; i < cin; ++i) {
      m += static_cast<double>(w[i]) * mean_x_[i];
      v += static_cast<double>(w[i]) * sw[i];
    }
    v = std::max(v / count_, 0.0);
    mean[c] = static_cast<float>(m);
    variance[c] = static_cast<float>(v);
    inv_std_[c] = 1.0 / std::sqrt(v + static_cast<double>(problem_.eps));
    // dst = gain (w . x - m) + shift: the gain folded into the row, the rest into the bias.
    const double gain = scale[c] * inv_std_[c];
    for (int64_t i = 0; i < cin; ++i)
      folded_weights_[c * cin + i] = static_cast<float>(gain * w[i]);
    folded_bias_[c] = static_cast<float>(shift[c] - gain * m);
  }
  conv_.Forward(context_, src, folded_weights_.data(), folded_bias_.data(), dst);
}

void FoldedConvBatchNorm::MaskAndSum(const float* dst, float* diff_dst) {
  if (block_ == 16) {
    MaskAndSumBlocks<16>(dst, diff_dst);
  } else {
    MaskAndSumBlocks<8>(dst, diff_dst);
  }
}

// With G the diff before the ReLU, x' = x - mean(x), xhat_c = (w_c . x') * inv_std_c, gain_c =
// scale_c * inv_std_c and n values per channel, the separate layers' gradients are
//   diff_shift_c = sum G_c                  (s1_c)
//   diff_scale_c = sum G_c xhat_c = (w_c . P_c) inv_std_c, P_c = sum G_c x'  (s2_c)
//   diff_y_c = gain_c (G_c - s1_c / n - xhat_c s2_c / n)
//   diff_w_c = sum diff_y_c x' = gain_c (P_c - s2_c inv_std_c / n * S w_c), S = sum x' x'
//   diff_x = sum_c w_c diff_y_c = W_folded' G - C x' + k,
//     C = sum_c gain_c s2_c inv_std_c / n * w_c w_c',  k = -sum_c gain_c s1_c / n * w_c.
// P is the convolution's weight gradient for G over x' and s1 the sum of G (MaskAndSum); W_folded'
// G the convolution's data gradient; C x' + k the moments convolution, added by its sum post-op.
void FoldedConvBatchNorm::Backward(const float* /*src: centered_ instead*/, const float* dst,
                                   float* diff_dst, const float* weights, const float* scale,
                                   float* diff_src, float* diff_weights, float* diff_scale,
                                   float* diff_shift) {
  const int64_t cin = problem_.shape.in_channels, cout = problem_.shape.out_channels;
  MaskAndSum(dst, diff_dst);
  std::fill(sums_out_.begin(), sums_out_.end(), 0.f);
  conv_.Backward(context_, centered_.data(), diff_dst, folded_weights_.data(), diff_src,
                 sums_out_.data(), nullptr);
  // Per channel: the shift's and scale's gradients, and the weight of x' in diff_y (x_term),
  // which scales row c of W into weighted_ for C = W' weighted_.
  std::fill(diff_x_bias_.begin(), diff_x_bias_.end(), 0.0);
  for (int64_t c = 0; c < cout; ++c) {
    const float* w = weights + c * cin;
    const float* p = sums_out_.data() + c * cin;
    double wp = 0.0;
    for (int64_t i = 0; i < cin; ++i) wp += static_cast<double>(w[i]) * p[i];
    const double s1 = diff_sum_[c], s2 = wp * inv_std_[c];
    const double gain = scale[c] * inv_std_[c];
    diff_shift[c] = static_cast<float>(s1);
    diff_scale[c] = static_cast<float>(s2);
    const double x_term = gain * s2 * inv_std_[c] / count_;
    const float* sw = scattered_.data() + c * cin;
    if (diff_weights) {
      for (int64_t i = 0; i < cin; ++i) {
        diff_weights[c * cin + i] += static_cast<float>(gain * p[i] - x_term * sw[i]);
      }
    }
    for (int64_t i = 0; i < cin; ++i) {
      weighted_[c * cin + i] = static_cast<float>(-x_term * w[i]);
      diff_x_bias_[i] -= gain * s1 / count_ * w[i];
    }
  }
  if (!diff_src) return;
  Gemm(true, cin, cin, cout, weights, weighted_.data(), correction_.data());
  for (int64_t i = 0; i < cin; ++i) correction_bias_[i] = static_cast<float>(diff_x_bias_[i]);
  moments_.Forward(context_, centered_.data(), correction_.data(), correction_bias_.data(),
                   diff_src);
}

}  // namespace dtrain::onednn
