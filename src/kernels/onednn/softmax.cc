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
  const dnnl::memory::desc desc = PlainDesc(dims);
  const prop_kind kind = training ? prop_kind::forward_training : prop_kind::forward_inference;
#if DTRAIN_ONEDNN3
  const dnnl::algorithm accurate = dnnl::algorithm::softmax_accurate;
  const auto forward_pd = ForwardDesc<softmax_forward>(context_, {}, kind, accurate, desc, desc, 1);
#else
  const auto forward_pd = ForwardDesc<softmax_forward>(context_, {}, kind, desc, 1);
#endif
  implementation_ = forward_pd.impl_info_str();
  dnnl::primitive backward;
  if (training) {
#if DTRAIN_ONEDNN3
    backward = softmax_backward(
        BackwardDesc<softmax_backward>(context_, {}, forward_pd, accurate, desc, desc, desc, 1));
#else
    backward =
        softmax_backward(BackwardDesc<softmax_backward>(context_, {}, forward_pd, desc, desc, 1));
#endif
  }
  passes_.Set(context_, dims, softmax_forward(forward_pd), backward);
  return Status::Ok();
}

}  // namespace dtrain::onednn
