// The three passes of a layer with weights, as oneDNN computes Convolution and InnerProduct once
// their primitives exist: forward (src, weights, bias -> dst), backward-data (diff_dst, weights ->
// diff_src) and backward-weights (src, diff_dst -> diff_weights, diff_bias, which are added to the
// caller's plain gradients, as Caffe accumulates them; no diff_bias where that primitive was
// made without a bias).
//
// The caller's tensors are in the `user` layouts (the kernel's layouts()); each primitive may
// want others, into which the
// passes relay data in regions of the kernel's Scratch, taken anew on every call. When both
// backward primitives want diff_dst in one layout it is relaid once. Primitives created with
// UserScratchpad() get their scratchpads from the same Scratch (the two backward ones share one
// region, as they run one after the other). Not thread-safe.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "kernels/linear_kernel.h"
#include "kernels/onednn/common.h"

namespace dtrain::onednn {

// The caller's layouts; `bias` is an empty desc when there is no bias.
struct UserLayouts {
  dnnl::memory::desc src, weights, dst, bias;
};

class WeightedPasses {
 public:
  // Each Set* takes a primitive descriptor of the matching oneDNN kind (convolution_forward::
  // primitive_desc, inner_product_forward::primitive_desc, ...) and reserves its scratch.
  template <typename ForwardPd>
  void SetForward(const CpuContext& context, Scratch* scratch, const UserLayouts& user,
                  const ForwardPd& pd) {
    SetForward(context, scratch, user, dnnl::primitive(pd), pd.src_desc(), pd.weights_desc(),
               pd.dst_desc(), pd.scratchpad_desc());
  }
  template <typename DataPd, typename WeightsPd>
  void SetBackward(const CpuContext& context, Scratch* scratch, const UserLayouts& user,
                   const DataPd& data, const WeightsPd& weights) {
    SetBackward(context, scratch, user, dnnl::primitive(data), data.diff_dst_desc(),
                data.weights_desc(), data.diff_src_desc(), dnnl::primitive(weights),
                weights.src_desc(), weights.diff_dst_desc(), weights.diff_weights_desc(),
                weights.diff_bias_desc(), data.scratchpad_desc(), weights.scratchpad_desc());
  }

  void Forward(CpuContext& context, const float* src, const float* weights, const float* bias,
               float* dst);
  // Any of diff_src, diff_weights, diff_bias may be null to skip it.
  void Backward(CpuContext& context, const float* src, const float* diff_dst, const float* weights,
                float* diff_src, float* diff_weights, float* diff_bias);

 private:
  void SetForward(const CpuContext& context, Scratch* scratch, const UserLayouts& user,
                  dnnl::primitive forward, const dnnl::memory::desc& src,
                  const dnnl::memory::desc& weights, const dnnl::memory::desc& dst,
                  const dnnl::memory::desc& scratchpad);
  void SetBackward(const CpuContext& context, Scratch* scratch, const UserLayouts& user,
                   dnnl::primitive data, const dnnl::memory::desc& data_diff_dst,
                   const dnnl::memory::desc& data_weights, const dnnl::memory::desc& diff_src,
                   dnnl::primitive weights, const dnnl::memory::desc& weights_src,
                   const dnnl::memory::desc& weights_diff_dst,
                   const dnnl::memory::desc& diff_weights, const dnnl::memory::desc& diff_bias,
                   const dnnl::memory::desc& data_scratchpad,
                   const dnnl::memory::desc& weights_scratchpad);
  // Points each scratchpad of `uses` that has a size at one region of `bytes` from the Scratch and
  // adds it to `args` (a no-op for primitives whose scratchpad oneDNN keeps).
  void TakeScratchpad(size_t bytes, std::initializer_list<std::pair<dnnl::memory*, Args*>> uses);

  Scratch* scratch_ = nullptr;
  bool bias_ = false;

  dnnl::primitive forward_;
  Relayout fwd_src_, fwd_weights_, fwd_dst_;
  dnnl::memory fwd_bias_, fwd_scratchpad_;
  size_t fwd_scratchpad_bytes_ = 0;
  Args fwd_args_;

  dnnl::primitive backward_data_;
  Relayout bwd_data_diff_dst_, bwd_data_weights_, bwd_data_diff_src_;
  dnnl::memory bwd_data_scratchpad_;
  Args bwd_data_args_;

  dnnl::primitive backward_weights_;
  Relayout bwd_weights_src_, bwd_weights_diff_dst_;
  Accumulator diff_weights_, diff_bias_;
  bool backward_bias_ = false;  // the weights pass computes diff_bias (its primitive has a bias)
  dnnl::memory bwd_weights_scratchpad_;
  Args bwd_weights_args_;
  size_t bwd_scratchpad_bytes_ = 0;  // the larger backward scratchpad
  bool shared_diff_dst_ = false;     // both backward passes want one diff_dst layout
};

// What the kernels with weights (Convolution, InnerProduct) share: their Init builds the
// primitives and sets `passes_` up; Forward and Backward run them.
class WeightedKernel : public kernels::LinearKernel {
 public:
  // oneDNN's names for the implementations it picked, e.g. "jit:avx2".
  std::string implementation() const override { return implementation_; }
  kernels::KernelLayouts layouts() const override { return layouts_; }

  void Forward(const float* src, const float* weights, const float* bias, float* dst) override {
    passes_.Forward(context_, src, weights, bias, dst);
  }
  void Backward(const float* src, const float* diff_dst, const float* weights, float* diff_src,
                float* diff_weights, float* diff_bias) override {
    passes_.Backward(context_, src, diff_dst, weights, diff_src, diff_weights, diff_bias);
  }

 protected:
  CpuContext context_;
  ScratchRef scratch_{nullptr};
  std::string implementation_;
  kernels::KernelLayouts layouts_;  // plain unless Init sets them
  WeightedPasses passes_;
};

}  // namespace dtrain::onednn
