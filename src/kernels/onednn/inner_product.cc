#include "kernels/onednn/inner_product.h"

#include <string>

namespace dtrain::onednn {

using dnnl::inner_product_backward_data;
using dnnl::inner_product_backward_weights;
using dnnl::inner_product_forward;
using dnnl::memory;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<kernels::LinearKernel>> InnerProduct::Create(
    const kernels::InnerProductProblem& problem, const kernels::KernelRequest& request) {
  return CreateKernel<kernels::LinearKernel, InnerProduct>(
      "inner product", problem.shape, problem.bias, request.training, request.scratch);
}

Status InnerProduct::Init(const kernels::InnerProductShape& s, bool bias, bool training,
                          Scratch* scratch) {
  scratch_ = ScratchRef(scratch);
  const Dims src_dims = {s.m, s.k}, weight_dims = {s.n, s.k}, dst_dims = {s.m, s.n};
  // Caffe's transposed weights are stored k x n: the same logical (n, k) tensor, column-major.
  const UserLayouts user = {
      PlainDesc(src_dims),
      s.transposed ? memory::desc(weight_dims, memory::data_type::f32, memory::format_tag::io)
                   : PlainDesc(weight_dims),
      PlainDesc(dst_dims), bias ? PlainDesc({s.n}) : memory::desc()};
  auto any = [](const Dims& d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
  };

  const dnnl::primitive_attr attr = UserScratchpad();  // from the net's Scratch
  const prop_kind forward_kind =
      training ? prop_kind::forward_training : prop_kind::forward_inference;
  auto forward_desc = [&](const memory::desc& weights) {
    return ForwardDesc<inner_product_forward>(context_, attr, forward_kind, any(src_dims), weights,
                                              user.bias, any(dst_dims));
  };
  // Where oneDNN's choice for the weights is its GEMM-based kernel (as without AVX-512), the
  // layout it asks for is only the transpose of Caffe's, which it reorders on every call; given
  // Caffe's layout, the same kernel reads it as it is. AMD EPYC with AVX2, 2 threads: LeNet's ip1
  // forward 0.74-0.86 -> 0.48-0.61 ms, AlexNet's fc6 / fc7 / fc8 66 / 29 / 17 -> 24 / 11 / 2.7 ms.
  auto forward_pd = forward_desc(any(weight_dims));
  const std::string chosen = forward_pd.impl_info_str();
  const bool gemm = chosen.rfind("gemm", 0) == 0 || chosen.rfind("x64:gemm", 0) == 0;  // not brgemm
  if (gemm && forward_pd.weights_desc() != user.weights) {
    auto as_stored = forward_desc(user.weights);
    if (chosen == as_stored.impl_info_str()) forward_pd = as_stored;
  }
  passes_.SetForward(context_, scratch_.get(), user, forward_pd);
  implementation_ = forward_pd.impl_info_str();
  if (!training) return Status::Ok();

  const auto data_pd = BackwardDesc<inner_product_backward_data>(
      context_, attr, forward_pd, any(src_dims), user.weights, any(dst_dims));
  const auto weights_pd = BackwardDesc<inner_product_backward_weights>(
      context_, attr, forward_pd, any(src_dims), user.weights, user.bias, any(dst_dims));
  passes_.SetBackward(context_, scratch_.get(), user, data_pd, weights_pd);
  return Status::Ok();
}

}  // namespace dtrain::onednn
