#include "kernels/onednn/relu.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::eltwise_backward;
using dnnl::eltwise_forward;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<kernels::UnaryKernel>> Relu::Create(
    const kernels::ReluProblem& problem, const kernels::KernelRequest& request) {
  if (problem.negative_slope < 0.f) {
    return Unsupported("negative_slope < 0: oneDNN's backward from dst needs a slope >= 0");
  }
  return CreateKernel<kernels::UnaryKernel, Relu>("ReLU", problem, request.training);
}

Status Relu::Init(const kernels::ReluProblem& p, bool training) {
  const Dims dims = {p.count};
  const algorithm relu = algorithm::eltwise_relu_use_dst_for_bwd;
  const dnnl::memory::desc desc = PlainDesc(dims);
  const prop_kind kind = training ? prop_kind::forward_training : prop_kind::forward_inference;
#if DTRAIN_ONEDNN3
  const auto forward_pd =
      ForwardDesc<eltwise_forward>(context_, {}, kind, relu, desc, desc, p.negative_slope, 0.f);
#else
  const auto forward_pd =
      ForwardDesc<eltwise_forward>(context_, {}, kind, relu, desc, p.negative_slope, 0.f);
#endif
  implementation_ = forward_pd.impl_info_str();
  dnnl::primitive backward;
  if (training) {
    // diff_src, diff_dst and (as relu_use_dst_for_bwd says) dst: all plain.
#if DTRAIN_ONEDNN3
    backward = eltwise_backward(BackwardDesc<eltwise_backward>(context_, {}, forward_pd, relu, desc,
                                                               desc, desc, p.negative_slope, 0.f));
#else
    backward = eltwise_backward(BackwardDesc<eltwise_backward>(context_, {}, forward_pd, relu, desc,
                                                               desc, p.negative_slope, 0.f));
#endif
  }
  passes_.Set(context_, dims, eltwise_forward(forward_pd), backward);
  return Status::Ok();
}

}  // namespace dtrain::onednn
