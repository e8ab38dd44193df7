#include "kernels/onednn/relu.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::eltwise_backward;
using dnnl::eltwise_forward;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<Relu>> Relu::Create(const ReluProblem& problem, bool training) {
  if (problem.negative_slope < 0.f) {
    return Unsupported("negative_slope < 0: oneDNN's backward from dst needs a slope >= 0");
  }
  return CreateKernel<Relu>("ReLU", problem, training);
}

Status Relu::Init(const ReluProblem& p, bool training) {
  const Dims dims = {p.count};
  const eltwise_forward::primitive_desc forward_pd(
      eltwise_forward::desc(training ? prop_kind::forward_training : prop_kind::forward_inference,
                            algorithm::eltwise_relu_use_dst_for_bwd, PlainDesc(dims),
                            p.negative_slope),
      context_.engine);
  forward_ = eltwise_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  src_ = UserMemory(context_, dims);
  dst_ = UserMemory(context_, dims);
  fwd_args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}};
  if (!training) return Status::Ok();
  const eltwise_backward::primitive_desc backward_pd(
      eltwise_backward::desc(algorithm::eltwise_relu_use_dst_for_bwd, PlainDesc(dims),
                             PlainDesc(dims), p.negative_slope),
      context_.engine, forward_pd);
  backward_ = eltwise_backward(backward_pd);
  bwd_dst_ = UserMemory(context_, dims);
  diff_dst_ = UserMemory(context_, dims);
  diff_src_ = UserMemory(context_, dims);
  bwd_args_ = {{DNNL_ARG_DST, bwd_dst_}, {DNNL_ARG_DIFF_DST, diff_dst_},
               {DNNL_ARG_DIFF_SRC, diff_src_}};
  return Status::Ok();
}

void Relu::Forward(const float* src, float* dst) {
  Bind(src_, src);
  Bind(dst_, dst);
  forward_.execute(context_.stream, fwd_args_);
}

void Relu::Backward(const float* dst, const float* diff_dst, float* diff_src) {
  Bind(bwd_dst_, dst);
  Bind(diff_dst_, diff_dst);
  Bind(diff_src_, diff_src);
  backward_.execute(context_.stream, bwd_args_);
}

}  // namespace dtrain::onednn
