#include "kernels/onednn/lrn.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::lrn_backward;
using dnnl::lrn_forward;
using dnnl::memory;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<kernels::UnaryKernel>> Lrn::Create(const kernels::LrnProblem& problem,
                                                            const kernels::KernelRequest& request) {
  return CreateKernel<kernels::UnaryKernel, Lrn>("LRN", problem.shape, problem.across_channels,
                                                 request.training, request.scratch);
}

Status Lrn::Init(const kernels::LrnShape& s, bool across_channels, bool training,
                 Scratch* scratch) {
  scratch_ = ScratchRef(scratch);
  const Dims dims = {s.batch, s.channels, s.height, s.width};
  const algorithm algo =
      across_channels ? algorithm::lrn_across_channels : algorithm::lrn_within_channel;
  const memory::desc blocked = BlockedDesc4d(dims);
  const prop_kind kind = training ? prop_kind::forward_training : prop_kind::forward_inference;
#if DTRAIN_ONEDNN3  // src and dst descs
  const auto forward_pd = ForwardDesc<lrn_forward>(context_, {}, kind, algo, blocked, blocked,
                                                   s.local_size, s.alpha, s.beta, s.k);
#else
  const auto forward_pd = ForwardDesc<lrn_forward>(context_, {}, kind, algo, blocked, s.local_size,
                                                   s.alpha, s.beta, s.k);
#endif
  forward_ = lrn_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  src_ = Relayout(context_, PlainDesc(dims), forward_pd.src_desc(), scratch_.get());
  dst_ = Relayout(context_, PlainDesc(dims), forward_pd.dst_desc(), scratch_.get());
  if (forward_pd.workspace_desc().get_size() > 0) {
    workspace_ = memory(forward_pd.workspace_desc(), context_.engine);
    fwd_args_[DNNL_ARG_WORKSPACE] = workspace_;
  }
  scratch_.get()->Reserve(src_.scratch_bytes() + dst_.scratch_bytes());
  if (!training) return Status::Ok();

#if DTRAIN_ONEDNN3  // diff_src, diff_dst and src descs
  const auto backward_pd =
      BackwardDesc<lrn_backward>(context_, {}, forward_pd, algo, blocked, blocked, blocked,
                                 s.local_size, s.alpha, s.beta, s.k);
#else
  const auto backward_pd = BackwardDesc<lrn_backward>(context_, {}, forward_pd, algo, blocked,
                                                      blocked, s.local_size, s.alpha, s.beta, s.k);
#endif
  backward_ = lrn_backward(backward_pd);
  bwd_src_ = Relayout(context_, PlainDesc(dims), backward_pd.src_desc(), scratch_.get());
  diff_dst_ = Relayout(context_, PlainDesc(dims), backward_pd.diff_dst_desc(), scratch_.get());
  diff_src_ = Relayout(context_, PlainDesc(dims), backward_pd.diff_src_desc(), scratch_.get());
  if (workspace_) bwd_args_[DNNL_ARG_WORKSPACE] = workspace_;
  scratch_.get()->Reserve(bwd_src_.scratch_bytes() + diff_dst_.scratch_bytes() +
                          diff_src_.scratch_bytes());
  const std::string backward_impl = backward_pd.impl_info_str();
  if (backward_impl != implementation_) {
    implementation_ = "fwd " + implementation_ + ", bwd " + backward_impl;
  }
  return Status::Ok();
}

void Lrn::Forward(const float* src, float* dst) {
  scratch_.get()->Reset();
  fwd_args_[DNNL_ARG_SRC] = src_.In(context_, src);
  fwd_args_[DNNL_ARG_DST] = dst_.Target(dst);
  forward_.execute(context_.stream, fwd_args_);
  dst_.Out(context_);
}

void Lrn::Backward(const float* src, const float* dst, const float* diff_dst, float* diff_src) {
  scratch_.get()->Reset();
  bwd_args_[DNNL_ARG_SRC] = bwd_src_.In(context_, src);
  bwd_args_[DNNL_ARG_DIFF_DST] = diff_dst_.In(context_, diff_dst);
  bwd_args_[DNNL_ARG_DIFF_SRC] = diff_src_.Target(diff_src);
  backward_.execute(context_.stream, bwd_args_);
  diff_src_.Out(context_);
}

}  // namespace dtrain::onednn
