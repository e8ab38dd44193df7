#include "kernels/onednn/softmax.h"

namespace dtrain::onednn {

using dnnl::prop_kind;
using dnnl::softmax_backward;
using dnnl::softmax_forward;

StatusOr<std::unique_ptr<kernels::UnaryKernel>> Softmax::Create(
    const kernels::SoftmaxProblem& problem, const kernels::KernelRequest& request) {
  return CreateKernel<kernels::UnaryKernel, Softmax>("softmax", problem, request.training);
}

Status Softmax::Init(const kernels::SoftmaxProblem& p, bool training) {
  // (outer, channels) when inner is 1: the dense case oneDNN vectorises best.
  const Dims dims = p.inner == 1 ? Dims{p.outer, p.channels} : Dims{p.outer, p.channels, p.inner};
  const softmax_forward::primitive_desc forward_pd(
      softmax_forward::desc(training ? prop_kind::forward_training : prop_kind::forward_inference,
                            PlainDesc(dims), 1),
      context_.engine);
  implementation_ = forward_pd.impl_info_str();
  dnnl::primitive backward;
  if (training) {
    backward = softmax_backward(softmax_backward::primitive_desc(
        softmax_backward::desc(PlainDesc(dims), PlainDesc(dims), 1), context_.engine, forward_pd));
  }
  passes_.Set(context_, dims, softmax_forward(forward_pd), backward);
  return Status::Ok();
}

}  // namespace dtrain::onednn
