#include "kernels/onednn/softmax.h"

namespace dtrain::onednn {

using dnnl::prop_kind;
using dnnl::softmax_backward;
using dnnl::softmax_forward;

StatusOr<std::unique_ptr<Softmax>> Softmax::Create(const SoftmaxProblem& problem, bool training) {
  return CreateKernel<Softmax>("softmax", problem, training);
}

Status Softmax::Init(const SoftmaxProblem& p, bool training) {
  // (outer, channels) when inner is 1: the dense case oneDNN vectorises best.
  const Dims dims = p.inner == 1 ? Dims{p.outer, p.channels} : Dims{p.outer, p.channels, p.inner};
  const softmax_forward::primitive_desc forward_pd(
      softmax_forward::desc(training ? prop_kind::forward_training : prop_kind::forward_inference,
                            PlainDesc(dims), 1),
      context_.engine);
  forward_ = softmax_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  src_ = UserMemory(context_, dims);
  dst_ = UserMemory(context_, dims);
  fwd_args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}};
  if (!training) return Status::Ok();
  const softmax_backward::primitive_desc backward_pd(
      softmax_backward::desc(PlainDesc(dims), PlainDesc(dims), 1), context_.engine, forward_pd);
  backward_ = softmax_backward(backward_pd);
  bwd_dst_ = UserMemory(context_, dims);
  diff_dst_ = UserMemory(context_, dims);
  diff_src_ = UserMemory(context_, dims);
  bwd_args_ = {{DNNL_ARG_DST, bwd_dst_}, {DNNL_ARG_DIFF_DST, diff_dst_},
               {DNNL_ARG_DIFF_SRC, diff_src_}};
  return Status::Ok();
}

void Softmax::Forward(const float* src, float* dst) {
  Bind(src_, src);
  Bind(dst_, dst);
  forward_.execute(context_.stream, fwd_args_);
}

void Softmax::Backward(const float* dst, const float* diff_dst, float* diff_src) {
  Bind(bwd_dst_, dst);
  Bind(diff_dst_, diff_dst);
  Bind(diff_src_, diff_src);
  backward_.execute(context_.stream, bwd_args_);
}

}  // namespace dtrain::onednn
