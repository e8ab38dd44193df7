#include "kernels/onednn/batch_norm.h"

#include <algorithm>

namespace dtrain::onednn {

using dnnl::batch_normalization_backward;
using dnnl::batch_normalization_forward;
using dnnl::normalization_flags;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<kernels::BatchNormKernel>> BatchNorm::Create(
    const kernels::BatchNormProblem& problem, const kernels::KernelRequest& request) {
  return CreateKernel<kernels::BatchNormKernel, BatchNorm>("batch normalization", problem,
                                                           request.training);
}

Status BatchNorm::Init(const kernels::BatchNormProblem& p, bool training) {
  const Dims dims = {p.num, p.channels, p.spatial, 1};
  const normalization_flags flags =
      p.global_stats ? normalization_flags::use_global_stats : normalization_flags::none;
  const batch_normalization_forward::primitive_desc forward_pd(
      batch_normalization_forward::desc(
          training ? prop_kind::forward_training : prop_kind::forward_inference, PlainDesc(dims),
          p.eps, flags),
      context_.engine);
  forward_ = batch_normalization_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  src_ = UserMemory(context_, dims);
  dst_ = UserMemory(context_, dims);
  mean_ = UserMemory(context_, {p.channels});
  variance_ = UserMemory(context_, {p.channels});
  fwd_args_ = {{DNNL_ARG_SRC, src_},
               {DNNL_ARG_DST, dst_},
               {DNNL_ARG_MEAN, mean_},
               {DNNL_ARG_VARIANCE, variance_}};
  if (!training) return Status::Ok();
  const batch_normalization_backward::primitive_desc backward_pd(
      batch_normalization_backward::desc(prop_kind::backward_data, PlainDesc(dims), PlainDesc(dims),
                                         p.eps, flags),
      context_.engine, forward_pd);
  backward_ = batch_normalization_backward(backward_pd);
  src_copy_.resize(static_cast<size_t>(p.num * p.channels * p.spatial));
  diff_dst_ = UserMemory(context_, dims);
  diff_src_ = UserMemory(context_, dims);
  bwd_args_ = {{DNNL_ARG_SRC, src_},
               {DNNL_ARG_MEAN, mean_},
               {DNNL_ARG_VARIANCE, variance_},
               {DNNL_ARG_DIFF_DST, diff_dst_},
               {DNNL_ARG_DIFF_SRC, diff_src_}};
  return Status::Ok();
}

void BatchNorm::Forward(const float* src, float* dst, float* mean, float* variance) {
  in_place_ = src == dst && !src_copy_.empty();
  if (in_place_) std::copy(src, src + src_copy_.size(), src_copy_.begin());
  Bind(src_, src);
  Bind(dst_, dst);
  Bind(mean_, mean);
  Bind(variance_, variance);
  forward_.execute(context_.stream, fwd_args_);
}

void BatchNorm::Backward(const float* src, const float* dst, const float* mean,
                         const float* variance, const float* diff_dst, float* diff_src) {
  Bind(src_, in_place_ ? src_copy_.data() : src);
  Bind(mean_, mean);
  Bind(variance_, variance);
  Bind(diff_dst_, diff_dst);
  Bind(diff_src_, diff_src);
  backward_.execute(context_.stream, bwd_args_);
}

}  // namespace dtrain::onednn
