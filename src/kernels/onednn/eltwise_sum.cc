#include "kernels/onednn/eltwise_sum.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::eltwise_forward;
using dnnl::memory;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<kernels::JoinKernel>> EltwiseSum::Create(
    const kernels::EltwiseProblem& problem, const kernels::KernelRequest& request) {
  if (problem.op != kernels::EltwiseOp::kSum) return Unsupported("only SUM has a oneDNN kernel");
  return CreateKernel<kernels::JoinKernel, EltwiseSum>("sum", problem, request.training);
}

Status EltwiseSum::Init(const kernels::EltwiseProblem& p, bool training) {
  const Dims dims = {p.count};
  const memory::desc desc = PlainDesc(dims);
  const std::vector<memory::desc> src_descs(p.coeffs.size(), desc);
#if DTRAIN_ONEDNN3
  const dnnl::sum::primitive_desc forward_pd(context_.engine, desc, p.coeffs, src_descs);
#else
  const dnnl::sum::primitive_desc forward_pd(desc, p.coeffs, src_descs, context_.engine);
#endif
  forward_ = dnnl::sum(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  for (size_t i = 0; i < p.coeffs.size(); ++i) {
    srcs_.push_back(UserMemory(context_, dims));
    fwd_args_[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = srcs_.back();
  }
  dst_ = UserMemory(context_, dims);
  fwd_args_[DNNL_ARG_DST] = dst_;
  if (!training) return Status::Ok();
  for (float coeff : p.coeffs) {
#if DTRAIN_ONEDNN3  // src and dst descs
    scale_.emplace_back(ForwardDesc<eltwise_forward>(context_, {}, prop_kind::forward_inference,
                                                     algorithm::eltwise_linear, desc, desc, coeff,
                                                     0.f));
#else
    scale_.emplace_back(ForwardDesc<eltwise_forward>(context_, {}, prop_kind::forward_inference,
                                                     algorithm::eltwise_linear, desc, coeff, 0.f));
#endif
  }
  diff_dst_ = UserMemory(context_, dims);
  diff_src_ = UserMemory(context_, dims);
  bwd_args_ = {{DNNL_ARG_SRC, diff_dst_}, {DNNL_ARG_DST, diff_src_}};
  return Status::Ok();
}

void EltwiseSum::Forward(const std::vector<const float*>& srcs, float* dst) {
  for (size_t i = 0; i < srcs.size(); ++i) Bind(srcs_[i], srcs[i]);
  Bind(dst_, dst);
  forward_.execute(context_.stream, fwd_args_);
}

void EltwiseSum::Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                          const float* diff_dst, float* diff_src) {
  Bind(diff_dst_, diff_dst);
  Bind(diff_src_, diff_src);
  scale_[i].execute(context_.stream, bwd_args_);
}

}  // namespace dtrain::onednn
