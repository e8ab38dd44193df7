#include "kernels/onednn/batch_norm.h"

#include "kernels/onednn/memory_layout.h"

namespace dtrain::onednn {

using dnnl::batch_normalization_backward;
using dnnl::batch_normalization_forward;
using dnnl::normalization_flags;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<kernels::BatchNormKernel>> BatchNorm::Create(
    const kernels::BatchNormProblem& problem, const kernels::KernelRequest& request) {
  if (problem.groups > 1) return Unsupported("statistics over sub-batches (stats_batch_size)");
  return CreateKernel<kernels::BatchNormKernel, BatchNorm>("batch normalization", problem,
                                                           request.training);
}

Status BatchNorm::Init(const kernels::BatchNormProblem& p, bool training) {
  const Dims dims = {p.num, p.channels, p.height, p.height == 0 ? 0 : p.spatial / p.height};
  const dnnl::memory::desc desc = p.channels >= 8 ? BlockedDesc4d(dims) : PlainDesc(dims);
  layouts_.src = layouts_.dst = LayoutFor(context_, desc);
  normalization_flags flags =
      p.global_stats ? normalization_flags::use_global_stats : normalization_flags::none;
  if (p.scale_shift)
    flags = flags | normalization_flags::use_scale | normalization_flags::use_shift;
  if (p.relu) flags = flags | normalization_flags::fuse_norm_relu;
  const prop_kind forward_kind =
      training ? prop_kind::forward_training : prop_kind::forward_inference;
#if DTRAIN_ONEDNN3
  const auto forward_pd = ForwardDesc<batch_normalization_forward>(context_, {}, forward_kind, desc,
                                                                   desc, p.eps, flags);
#else
  const auto forward_pd =
      ForwardDesc<batch_normalization_forward>(context_, {}, forward_kind, desc, p.eps, flags);
#endif
  forward_ = batch_normalization_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  auto values = [&] { return dnnl::memory(desc, context_.engine, DNNL_MEMORY_NONE); };
  src_ = values();
  dst_ = values();
  mean_ = UserMemory(context_, {p.channels});
  variance_ = UserMemory(context_, {p.channels});
  fwd_args_ = {{DNNL_ARG_SRC, src_},
               {DNNL_ARG_DST, dst_},
               {DNNL_ARG_MEAN, mean_},
               {DNNL_ARG_VARIANCE, variance_}};
  if (p.scale_shift) {
    scale_ = UserMemory(context_, {p.channels});
    shift_ = UserMemory(context_, {p.channels});
    fwd_args_[DNNL_ARG_SCALE] = scale_;
    fwd_args_[DNNL_ARG_SHIFT] = shift_;
  }
  if (!training) return Status::Ok();
  if (p.relu) {
    workspace_ = dnnl::memory(forward_pd.workspace_desc(), context_.engine);
    fwd_args_[DNNL_ARG_WORKSPACE] = workspace_;
  }
  const prop_kind backward_kind = p.scale_shift ? prop_kind::backward : prop_kind::backward_data;
#if DTRAIN_ONEDNN3
  const auto backward_pd = BackwardDesc<batch_normalization_backward>(
      context_, {}, forward_pd, backward_kind, desc, desc, desc, p.eps, flags);
#else
  const auto backward_pd = BackwardDesc<batch_normalization_backward>(
      context_, {}, forward_pd, backward_kind, desc, desc, p.eps, flags);
#endif
  backward_ = batch_normalization_backward(backward_pd);
  diff_dst_ = values();
  diff_src_ = values();
  bwd_args_ = {{DNNL_ARG_SRC, src_},
               {DNNL_ARG_DIFF_DST, diff_dst_},
               {DNNL_ARG_DIFF_SRC, diff_src_},
               {DNNL_ARG_MEAN, mean_},
               {DNNL_ARG_VARIANCE, variance_}};
  if (p.scale_shift) {
    diff_scale_ = UserMemory(context_, {p.channels});
    diff_shift_ = UserMemory(context_, {p.channels});
    bwd_args_[DNNL_ARG_SCALE] = scale_;
#if !DTRAIN_ONEDNN3
    // oneDNN 2.6 refuses the backward pass without its shift argument, which it does not read:
    // shift_ still points where the forward pass bound it. (oneDNN 3.x refuses it there.)
    bwd_args_[DNNL_ARG_SHIFT] = shift_;
#endif
    bwd_args_[DNNL_ARG_DIFF_SCALE] = diff_scale_;
    bwd_args_[DNNL_ARG_DIFF_SHIFT] = diff_shift_;
  }
  if (p.relu) bwd_args_[DNNL_ARG_WORKSPACE] = workspace_;
  return Status::Ok();
}

void BatchNorm::Forward(const float* src, float* dst, float* mean, float* variance,
                        const float* scale, const float* shift) {
  Bind(src_, src);
  Bind(dst_, dst);
  Bind(mean_, mean);
  Bind(variance_, variance);
  if (scale_) {
    Bind(scale_, scale);
    Bind(shift_, shift);
  }
  forward_.execute(context_.stream, fwd_args_);
}

void BatchNorm::Backward(const float* src, const float*, const float* mean, const float* variance,
                         const float* scale, const float* diff_dst, float* diff_src,
                         float* diff_scale, float* diff_shift) {
  Bind(src_, src);
  Bind(diff_dst_, diff_dst);
  Bind(diff_src_, diff_src);
  Bind(mean_, mean);
  Bind(variance_, variance);
  if (diff_scale_) {
    Bind(scale_, scale);
    Bind(diff_scale_, diff_scale);
    Bind(diff_shift_, diff_shift);
  }
  backward_.execute(context_.stream, bwd_args_);
}

}  // namespace dtrain::onednn
