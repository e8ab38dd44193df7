#include "kernels/onednn/convolution.h"

namespace dtrain::onednn {

using dnnl::algorithm;
using dnnl::convolution_backward_data;
using dnnl::convolution_backward_weights;
using dnnl::convolution_forward;
using dnnl::memory;
using dnnl::prop_kind;
using tag = memory::format_tag;

StatusOr<std::unique_ptr<Convolution>> Convolution::Create(
    const reference::ConvolutionShape& shape, bool bias, bool training, Scratch* scratch) {
  return CreateKernel<Convolution>("convolution", shape, bias, training, scratch);
}

Status Convolution::Init(const reference::ConvolutionShape& s, bool bias, bool training,
                         Scratch* scratch) {
  scratch_ = ScratchRef(scratch);
  bias_ = bias;
  training_ = training;
  const reference::Window2d& w = s.window;
  const Dims src_dims = {s.batch, s.in_channels, s.in_h, s.in_w};
  const Dims dst_dims = {s.batch, s.out_channels, s.out_h, s.out_w};
  const Dims weight_dims =
      s.groups == 1 ? Dims{s.out_channels, s.in_channels, w.kernel_h, w.kernel_w}
                    : Dims{s.groups, s.out_channels / s.groups, s.in_channels / s.groups,
                           w.kernel_h, w.kernel_w};
  const Dims bias_dims = {s.out_channels};
  const Dims strides = {w.stride_h, w.stride_w};
  const Dims dilates = {w.dilation_h - 1, w.dilation_w - 1};  // oneDNN counts the gaps
  const Dims padding = {w.pad_h, w.pad_w};                    // output sizes round down as Caffe's

  auto any = [](const Dims& d) { return memory::desc(d, memory::data_type::f32, tag::any); };
  const memory::desc bias_desc = bias ? PlainDesc(bias_dims) : memory::desc();
  const auto forward_desc = convolution_forward::desc(
      training ? prop_kind::forward_training : prop_kind::forward_inference,
      algorithm::convolution_direct, any(src_dims), any(weight_dims), bias_desc, any(dst_dims),
      strides, dilates, padding, padding);
  const convolution_forward::primitive_desc forward_pd(forward_desc, context_.engine);
  forward_ = convolution_forward(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  fwd_src_ = Relayout(context_, PlainDesc(src_dims), forward_pd.src_desc(), scratch_.get());
  fwd_weights_ = Relayout(context_, PlainDesc(weight_dims), forward_pd.weights_desc(), scratch_.get());
  fwd_dst_ = Relayout(context_, PlainDesc(dst_dims), forward_pd.dst_desc(), scratch_.get());
  if (bias) fwd_bias_ = memory(bias_desc, context_.engine, DNNL_MEMORY_NONE);
  scratch_.get()->Reserve(fwd_src_.scratch_bytes() + fwd_weights_.scratch_bytes() +
                          fwd_dst_.scratch_bytes());
  if (!training) return Status::Ok();

  const convolution_backward_data::primitive_desc data_pd(
      convolution_backward_data::desc(algorithm::convolution_direct, any(src_dims),
                                      any(weight_dims), any(dst_dims), strides, dilates, padding,
                                      padding),
      context_.engine, forward_pd);
  backward_data_ = convolution_backward_data(data_pd);
  bwd_data_diff_dst_ = Relayout(context_, PlainDesc(dst_dims), data_pd.diff_dst_desc(), scratch_.get());
  bwd_data_weights_ = Relayout(context_, PlainDesc(weight_dims), data_pd.weights_desc(), scratch_.get());
  bwd_data_diff_src_ = Relayout(context_, PlainDesc(src_dims), data_pd.diff_src_desc(), scratch_.get());

  // With fewer than 8 input channels per group (a first layer on raw images) the blocked
  // backward-weights kernel has nothing to vectorise over and runs several times slower than
  // oneDNN's GEMM-based one, which works on the plain layouts (measured on LeNet's conv1).
  const bool flat_src = s.in_channels / s.groups < 8;
  const convolution_backward_weights::primitive_desc weights_pd(
      convolution_backward_weights::desc(
          algorithm::convolution_direct, flat_src ? PlainDesc(src_dims) : any(src_dims),
          any(weight_dims), bias_desc, flat_src ? PlainDesc(dst_dims) : any(dst_dims), strides,
          dilates, padding, padding),
      context_.engine, forward_pd);
  backward_weights_ = convolution_backward_weights(weights_pd);
  bwd_weights_src_ = Relayout(context_, PlainDesc(src_dims), weights_pd.src_desc(), scratch_.get());
  bwd_weights_diff_dst_ = Relayout(context_, PlainDesc(dst_dims), weights_pd.diff_dst_desc(), scratch_.get());
  diff_weights_ = Accumulator(context_, PlainDesc(weight_dims), weights_pd.diff_weights_desc());
  if (bias) diff_bias_ = Accumulator(context_, bias_desc, weights_pd.diff_bias_desc());

  shared_diff_dst_ = data_pd.diff_dst_desc() == weights_pd.diff_dst_desc();
  scratch_.get()->Reserve(bwd_weights_src_.scratch_bytes() + bwd_weights_diff_dst_.scratch_bytes() +
                          bwd_data_diff_dst_.scratch_bytes() + bwd_data_weights_.scratch_bytes() +
                          bwd_data_diff_src_.scratch_bytes());

  const std::string data_impl = data_pd.impl_info_str();
  const std::string weights_impl = weights_pd.impl_info_str();
  if (data_impl != implementation_ || weights_impl != implementation_) {
    implementation_ = "fwd " + implementation_ + ", bwd data " + data_impl + ", bwd weights " +
                      weights_impl;
  }
  return Status::Ok();
}

void Convolution::Forward(const float* src, const float* weights, const float* bias,
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

void Convolution::Backward(const float* src, const float* diff_dst, const float* weights,
                           float* diff_src, float* diff_weights, float* diff_bias) {
  scratch_.get()->Reset();
  const bool weights_pass = diff_weights || diff_bias;
  if (weights_pass) {
    bwd_weights_args_[DNNL_ARG_SRC] = bwd_weights_src_.In(context_, src);
    bwd_weights_args_[DNNL_ARG_DIFF_DST] = bwd_weights_diff_dst_.In(context_, diff_dst);
    bwd_weights_args_[DNNL_ARG_DIFF_WEIGHTS] = diff_weights_.target();
    if (bias_) bwd_weights_args_[DNNL_ARG_DIFF_BIAS] = diff_bias_.target();
    backward_weights_.execute(context_.stream, bwd_weights_args_);
    if (diff_weights) diff_weights_.AddTo(context_, diff_weights);
    if (diff_bias) diff_bias_.AddTo(context_, diff_bias);
  }
  if (diff_src) {
    // diff_dst was relaid for the weights pass already when both want one layout.
    bwd_data_args_[DNNL_ARG_DIFF_DST] = weights_pass && shared_diff_dst_
                                            ? bwd_weights_args_[DNNL_ARG_DIFF_DST]
                                            : bwd_data_diff_dst_.In(context_, diff_dst);
    bwd_data_args_[DNNL_ARG_WEIGHTS] = bwd_data_weights_.In(context_, weights);
    bwd_data_args_[DNNL_ARG_DIFF_SRC] = bwd_data_diff_src_.Target(diff_src);
    backward_data_.execute(context_.stream, bwd_data_args_);
    bwd_data_diff_src_.Out(context_);
  }
}

}  // namespace dtrain::onednn
