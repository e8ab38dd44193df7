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
  const eltwise_forward::primitive_desc forward_pd(
      eltwise_forward::desc(training ? prop_kind::forward_training : prop_kind::forward_inference,
                            algorithm::eltwise_relu_use_dst_for_bwd, PlainDesc(dims),
                            p.negative_slope),
      context_.engine);
  implementation_ = forward_pd.impl_info_str();
  dnnl::primitive backward;
  if (training) {
    backward = eltwise_backward(eltwise_backward::primitive_desc(
        eltwise_backward::desc(algorithm::eltwise_relu_use_dst_for_bwd, PlainDesc(dims),
                               PlainDesc(dims), p.negative_slope),
        context_.engine, forward_pd));
  }
  passes_.Set(context_, dims, eltwise_forward(forward_pd), backward);
  return Status::Ok();
}

}  // namespace dtrain::onednn
