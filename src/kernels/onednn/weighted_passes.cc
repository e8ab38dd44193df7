#include "kernels/onednn/weighted_passes.h"

#include <algorithm>

namespace dtrain::onednn {

using dnnl::memory;

void WeightedPasses::SetForward(const CpuContext& context, Scratch* scratch,
                                const UserLayouts& user, dnnl::primitive forward,
                                const memory::desc& src, const memory::desc& weights,
                                const memory::desc& dst, const memory::desc& scratchpad) {
  scratch_ = scratch;
  bias_ = user.bias != memory::desc();
  forward_ = forward;
  fwd_src_ = Relayout(context, user.src, src, scratch);
  fwd_weights_ = Relayout(context, user.weights, weights, scratch);
  fwd_dst_ = Relayout(context, user.dst, dst, scratch);
  if (bias_) fwd_bias_ = memory(user.bias, context.engine, DNNL_MEMORY_NONE);
  fwd_scratchpad_ = memory(scratchpad, context.engine, DNNL_MEMORY_NONE);
  fwd_scratchpad_bytes_ = scratchpad.get_size();
  scratch->Reserve(fwd_src_.scratch_bytes() + fwd_weights_.scratch_bytes() +
                   fwd_dst_.scratch_bytes() + Scratch::Rounded(fwd_scratchpad_bytes_));
}

void WeightedPasses::SetBackward(const CpuContext& context, Scratch* scratch,
                                 const UserLayouts& user, dnnl::primitive data,
                                 const memory::desc& data_diff_dst,
                                 const memory::desc& data_weights, const memory::desc& diff_src,
                                 dnnl::primitive weights, const memory::desc& weights_src,
                                 const memory::desc& weights_diff_dst,
                                 const memory::desc& diff_weights, const memory::desc& diff_bias,
                                 const memory::desc& data_scratchpad,
                                 const memory::desc& weights_scratchpad) {
  backward_data_ = data;
  bwd_data_diff_dst_ = Relayout(context, user.dst, data_diff_dst, scratch);
  bwd_data_weights_ = Relayout(context, user.weights, data_weights, scratch);
  bwd_data_diff_src_ = Relayout(context, user.src, diff_src, scratch);
  backward_weights_ = weights;
  bwd_weights_src_ = Relayout(context, user.src, weights_src, scratch);
  bwd_weights_diff_dst_ = Relayout(context, user.dst, weights_diff_dst, scratch);
  diff_weights_ = Accumulator(context, user.weights, diff_weights);
  backward_bias_ = bias_ && diff_bias.get_size() != 0;
  if (backward_bias_) diff_bias_ = Accumulator(context, user.bias, diff_bias);
  shared_diff_dst_ = data_diff_dst == weights_diff_dst;
  bwd_data_scratchpad_ = memory(data_scratchpad, context.engine, DNNL_MEMORY_NONE);
  bwd_weights_scratchpad_ = memory(weights_scratchpad, context.engine, DNNL_MEMORY_NONE);
  bwd_scratchpad_bytes_ = std::max(data_scratchpad.get_size(), weights_scratchpad.get_size());
  scratch->Reserve(bwd_weights_src_.scratch_bytes() + bwd_weights_diff_dst_.scratch_bytes() +
                   bwd_data_diff_dst_.scratch_bytes() + bwd_data_weights_.scratch_bytes() +
                   bwd_data_diff_src_.scratch_bytes() + Scratch::Rounded(bwd_scratchpad_bytes_));
}

void WeightedPasses::TakeScratchpad(size_t bytes,
                                    std::initializer_list<std::pair<memory*, Args*>> uses) {
  if (bytes == 0) return;
  void* region = scratch_->Take(bytes);
  for (const auto& [scratchpad, args] : uses) {
    if (scratchpad->get_desc().get_size() == 0) continue;
    scratchpad->set_data_handle(region);
    (*args)[DNNL_ARG_SCRATCHPAD] = *scratchpad;
  }
}

void WeightedPasses::Forward(CpuContext& context, const float* src, const float* weights,
                             const float* bias, float* dst) {
  scratch_->Reset();
  TakeScratchpad(fwd_scratchpad_bytes_, {{&fwd_scratchpad_, &fwd_args_}});
  fwd_args_[DNNL_ARG_SRC] = fwd_src_.In(context, src);
  fwd_args_[DNNL_ARG_WEIGHTS] = fwd_weights_.In(context, weights);
  fwd_args_[DNNL_ARG_DST] = fwd_dst_.Target(dst);
  if (bias_) {
    Bind(fwd_bias_, bias);
    fwd_args_[DNNL_ARG_BIAS] = fwd_bias_;
  }
  forward_.execute(context.stream, fwd_args_);
  fwd_dst_.Out(context);
}

void WeightedPasses::Backward(CpuContext& context, const float* src, const float* diff_dst,
                              const float* weights, float* diff_src, float* diff_weights,
                              float* diff_bias) {
  scratch_->Reset();
  TakeScratchpad(bwd_scratchpad_bytes_, {{&bwd_weights_scratchpad_, &bwd_weights_args_},
                                         {&bwd_data_scratchpad_, &bwd_data_args_}});
  const bool weights_pass = diff_weights || diff_bias;
  if (weights_pass) {
    bwd_weights_args_[DNNL_ARG_SRC] = bwd_weights_src_.In(context, src);
    bwd_weights_args_[DNNL_ARG_DIFF_DST] = bwd_weights_diff_dst_.In(context, diff_dst);
    bwd_weights_args_[DNNL_ARG_DIFF_WEIGHTS] = diff_weights_.target();
    if (backward_bias_) bwd_weights_args_[DNNL_ARG_DIFF_BIAS] = diff_bias_.target();
    backward_weights_.execute(context.stream, bwd_weights_args_);
    if (diff_weights) diff_weights_.AddTo(context, diff_weights);
    if (diff_bias && backward_bias_) diff_bias_.AddTo(context, diff_bias);
  }
  if (diff_src) {
    // diff_dst was relaid for the weights pass already when both want one layout.
    bwd_data_args_[DNNL_ARG_DIFF_DST] = weights_pass && shared_diff_dst_
                                            ? bwd_weights_args_[DNNL_ARG_DIFF_DST]
                                            : bwd_data_diff_dst_.In(context, diff_dst);
    bwd_data_args_[DNNL_ARG_WEIGHTS] = bwd_data_weights_.In(context, weights);
    bwd_data_args_[DNNL_ARG_DIFF_SRC] = bwd_data_diff_src_.Target(diff_src);
    backward_data_.execute(context.stream, bwd_data_args_);
    bwd_data_diff_src_.Out(context);
  }
}

}  // namespace dtrain::onednn
