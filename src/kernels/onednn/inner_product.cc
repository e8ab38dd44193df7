#include "kernels/onednn/inner_product.h"

namespace dtrain::onednn {

using dnnl::inner_product_backward_data;
using dnnl::inner_product_backward_weights;
using dnnl::inner_product_forward;
using dnnl::memory;
using dnnl::prop_kind;

StatusOr<std::unique_ptr<InnerProduct>> InnerProduct::Create(
    const reference::InnerProductShape& shape, bool bias, bool training, Scratch* scratch) {
  return CreateKernel<InnerProduct>("inner product", shape, bias, training, scratch);
}

Status InnerProduct::Init(const reference::InnerProductShape& s, bool bias, bool training,
                          Scratch* scratch) {
  scratch_ = ScratchRef(scratch);
  bias_ = bias;
  const Dims src_dims = {s.m, s.k}, weight_dims = {s.n, s.k}, dst_dims = {s.m, s.n};
  // Caffe's transposed weights are stored k x n: the same logical (n, k) tensor, column-major.
  const memory::desc user_weights =
      s.transposed ? memory::desc(weight_dims, memory::data_type::f32, memory::format_tag::io)
                   : PlainDesc(weight_dims);
  auto any = [](const Dims& d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
  };
  const memory::desc bias_desc = bias ? PlainDesc({s.n}) : memory::desc();

  const inner_product_forward::primitive_desc forward_pd(
      inner_product_forward::desc(
          training ? prop_kind::forward_training : prop_kind::forward_inference, any(src_dims),
          any(weight_dims), bias_desc, any(dst_dims)),
      context_.engine);
  forward_ = inner_product_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  fwd_src_ = Relayout(context_, PlainDesc(src_dims), forward_pd.src_desc(), scratch_.get());
  fwd_weights_ = Relayout(context_, user_weights, forward_pd.weights_desc(), scratch_.get());
  fwd_dst_ = Relayout(context_, PlainDesc(dst_dims), forward_pd.dst_desc(), scratch_.get());
  if (bias) fwd_bias_ = memory(bias_desc, context_.engine, DNNL_MEMORY_NONE);
  scratch_.get()->Reserve(fwd_src_.scratch_bytes() + fwd_weights_.scratch_bytes() +
                          fwd_dst_.scratch_bytes());
  if (!training) return Status::Ok();

  const inner_product_backward_data::primitive_desc data_pd(
      inner_product_backward_data::desc(any(src_dims), any(weight_dims), any(dst_dims)),
      context_.engine, forward_pd);
  backward_data_ = inner_product_backward_data(data_pd);
  bwd_data_diff_dst_ = Relayout(context_, PlainDesc(dst_dims), data_pd.diff_dst_desc(), scratch_.get());
  bwd_data_weights_ = Relayout(context_, user_weights, data_pd.weights_desc(), scratch_.get());
  bwd_data_diff_src_ = Relayout(context_, PlainDesc(src_dims), data_pd.diff_src_desc(), scratch_.get());

  const inner_product_backward_weights::primitive_desc weights_pd(
      inner_product_backward_weights::desc(any(src_dims), any(weight_dims), bias_desc,
                                           any(dst_dims)),
      context_.engine, forward_pd);
  backward_weights_ = inner_product_backward_weights(weights_pd);
  bwd_weights_src_ = Relayout(context_, PlainDesc(src_dims), weights_pd.src_desc(), scratch_.get());
  bwd_weights_diff_dst_ = Relayout(context_, PlainDesc(dst_dims), weights_pd.diff_dst_desc(), scratch_.get());
  diff_weights_ = Accumulator(context_, user_weights, weights_pd.diff_weights_desc());
  if (bias) diff_bias_ = Accumulator(context_, bias_desc, weights_pd.diff_bias_desc());
  scratch_.get()->Reserve(bwd_weights_src_.scratch_bytes() + bwd_weights_diff_dst_.scratch_bytes() +
                          bwd_data_diff_dst_.scratch_bytes() + bwd_data_weights_.scratch_bytes() +
                          bwd_data_diff_src_.scratch_bytes());
  return Status::Ok();
}

void InnerProduct::Forward(const float* src, const float* weights, const float* bias,
                           float* dst) {
  scratch_.get()->Reset();
  fwd_args_[DNNL_ARG_SRC] = fwd_src_.In(context_, src);
  fwd_args_[DNNL_ARG_WEIGHTS] = fwd_weights_.In(context_, weights);
  fwd_args_[DNNL_ARG_DST] = fwd_dst_.Target(dst);
  if (bias_) {
    Bind(fwd_bias_, bias);
    fwd_args_[DNNL_ARG_BIAS] = fwd_bias_;
  }
  forward_.execute(context_.stream, fwd_args_);
  fwd_dst_.Out(context_);
}

void InnerProduct::Backward(const float* src, const float* diff_dst, const float* weights,
                            float* diff_src, float* diff_weights, float* diff_bias) {
  scratch_.get()->Reset();
  if (diff_weights || diff_bias) {
    bwd_weights_args_[DNNL_ARG_SRC] = bwd_weights_src_.In(context_, src);
    bwd_weights_args_[DNNL_ARG_DIFF_DST] = bwd_weights_diff_dst_.In(context_, diff_dst);
    bwd_weights_args_[DNNL_ARG_DIFF_WEIGHTS] = diff_weights_.target();
    if (bias_) bwd_weights_args_[DNNL_ARG_DIFF_BIAS] = diff_bias_.target();
    backward_weights_.execute(context_.stream, bwd_weights_args_);
    if (diff_weights) diff_weights_.AddTo(context_, diff_weights);
    if (diff_bias) diff_bias_.AddTo(context_, diff_bias);
  }
  if (diff_src) {
    bwd_data_args_[DNNL_ARG_DIFF_DST] = bwd_data_diff_dst_.In(context_, diff_dst);
    bwd_data_args_[DNNL_ARG_WEIGHTS] = bwd_data_weights_.In(context_, weights);
    bwd_data_args_[DNNL_ARG_DIFF_SRC] = bwd_data_diff_src_.Target(diff_src);
    backward_data_.execute(context_.stream, bwd_data_args_);
    bwd_data_diff_src_.Out(context_);
  }
}

}  // namespace dtrain::onednn
