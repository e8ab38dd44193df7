#include "kernels/onednn/pooling.h"

#include <algorithm>

#include "kernels/onednn/memory_layout.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::pooling_backward;
using dnnl::pooling_forward;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<kernels::PoolingKernel>> Pooling::Create(
    const kernels::PoolingProblem& problem, const kernels::KernelRequest& request) {
  if (problem.argmax_top) return Unsupported("the argmax top (mask) is a reference-only output");
  if (problem.method == kernels::PoolMethod::kStochastic) {
    return Unsupported("oneDNN has no STOCHASTIC pooling");
  }
  // Measured on the benchmark nets (docs/engines.md): with AVX-512's blocks of 16 channels it is
  // faster than the reference loops, with AVX2's blocks of 8 it was not.
  if (request.engine != Engine::kOnednn && !BlocksOf16Channels()) {
    return Unsupported(
        "without AVX-512, oneDNN pooling on dtrain's plain NCHW tensors (relaid into blocks of 8 "
        "channels and back) ran slower than the reference loops on the benchmark nets; engine: "
        "ONEDNN forces it");
  }
  return CreateKernel<kernels::PoolingKernel, Pooling>("pooling", problem.shape,
                                                       problem.method == kernels::PoolMethod::kMax,
                                                       request.training, request.scratch);
}

Status Pooling::Init(const kernels::PoolingShape& s, bool max, bool training, Scratch* scratch) {
  scratch_ = ScratchRef(scratch);
  const kernels::Window2d& w = s.window;
  // Right/bottom padding that makes oneDNN's (floor) output size Caffe's; never less than the
  // symmetric pad, which floor mode already fits.
  const int pad_b = std::max(w.pad_h, (s.out_h - 1) * w.stride_h + w.kernel_h - s.in_h - w.pad_h);
  const int pad_r = std::max(w.pad_w, (s.out_w - 1) * w.stride_w + w.kernel_w - s.in_w - w.pad_w);
  algorithm algo = algorithm::pooling_max;
  if (!max) {
    const bool padded = w.pad_h > 0 || w.pad_w > 0;
    const bool overhang = pad_b > w.pad_h || pad_r > w.pad_w;
    if (padded && overhang) {
      return Unsupported(
          "average pooling with padding whose last window overhangs the padded "
          "image: Caffe's divisor there has no oneDNN equivalent");
    }
    // No padding: Caffe divides by the window clipped to the image. Padding without overhang:
    // by the full kernel, padding taps included.
    algo = padded ? algorithm::pooling_avg_include_padding : algorithm::pooling_avg_exclude_padding;
  }
  const Dims src_dims = {s.batch, s.channels, s.in_h, s.in_w};
  const Dims dst_dims = {s.batch, s.channels, s.out_h, s.out_w};
  const Dims strides = {w.stride_h, w.stride_w}, kernel = {w.kernel_h, w.kernel_w};
  const Dims pad_l = {w.pad_h, w.pad_w}, pad_r_dims = {pad_b, pad_r};

  // oneDNN's plain-layout pooling is a slow generic loop; its vectorised one wants channel
  // blocks, so data is relaid around it.
  // oneDNN 3.x also takes the window's dilation (none: Caffe's pooling has none).
#if DTRAIN_ONEDNN3
  const Dims dilation = {0, 0};
#define DTRAIN_POOLING_WINDOW strides, kernel, dilation, pad_l, pad_r_dims
#else
#define DTRAIN_POOLING_WINDOW strides, kernel, pad_l, pad_r_dims
#endif
  const auto forward_pd = ForwardDesc<pooling_forward>(
      context_, {}, training ? prop_kind::forward_training : prop_kind::forward_inference, algo,
      BlockedDesc4d(src_dims), BlockedDesc4d(dst_dims), DTRAIN_POOLING_WINDOW);
  forward_ = pooling_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  // The caller passes tensors in these layouts (its neighbours' when they share them).
  layouts_ = {LayoutFor(context_, forward_pd.src_desc()),
              LayoutFor(context_, forward_pd.dst_desc())};
  const memory::desc user_src = DescOf(layouts_.src, src_dims);
  const memory::desc user_dst = DescOf(layouts_.dst, dst_dims);
  src_ = Relayout(context_, user_src, forward_pd.src_desc(), scratch_.get());
  dst_ = Relayout(context_, user_dst, forward_pd.dst_desc(), scratch_.get());
  if (forward_pd.workspace_desc().get_size() > 0) {
    workspace_ = memory(forward_pd.workspace_desc(), context_.engine);
    fwd_args_[DNNL_ARG_WORKSPACE] = workspace_;
  }
  scratch_.get()->Reserve(src_.scratch_bytes() + dst_.scratch_bytes());
  if (!training) return Status::Ok();

  const auto backward_pd =
      BackwardDesc<pooling_backward>(context_, {}, forward_pd, algo, BlockedDesc4d(src_dims),
                                     BlockedDesc4d(dst_dims), DTRAIN_POOLING_WINDOW);
#undef DTRAIN_POOLING_WINDOW
  backward_ = pooling_backward(backward_pd);
  diff_dst_ = Relayout(context_, user_dst, backward_pd.diff_dst_desc(), scratch_.get());
  diff_src_ = Relayout(context_, user_src, backward_pd.diff_src_desc(), scratch_.get());
  if (workspace_) bwd_args_[DNNL_ARG_WORKSPACE] = workspace_;
  scratch_.get()->Reserve(diff_dst_.scratch_bytes() + diff_src_.scratch_bytes());
  return Status::Ok();
}

void Pooling::Forward(const float* src, const float* uniforms, float* dst, float* argmax) {
  scratch_.get()->Reset();
  fwd_args_[DNNL_ARG_SRC] = src_.In(context_, src);
  fwd_args_[DNNL_ARG_DST] = dst_.Target(dst);
  forward_.execute(context_.stream, fwd_args_);
  dst_.Out(context_);
}

void Pooling::Backward(const float* src, const float* diff_dst, float* diff_src) {
  scratch_.get()->Reset();
  bwd_args_[DNNL_ARG_DIFF_DST] = diff_dst_.In(context_, diff_dst);
  bwd_args_[DNNL_ARG_DIFF_SRC] = diff_src_.Target(diff_src);
  backward_.execute(context_.stream, bwd_args_);
  diff_src_.Out(context_);
}

}  // namespace dtrain::onednn
