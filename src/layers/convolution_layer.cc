#include "layers/convolution_layer.h"

#include <string>

#include "core/check.h"
#include "layers/batch_norm_layer.h"

namespace dtrain {

int64_t ConvolutionLayer::OutputSize(const kernels::SpatialAxis& a, int in) const {
  const int64_t dilated = int64_t{a.dilation} * (a.kernel - 1) + 1;
  const int64_t span = in + 2 * int64_t{a.pad} - dilated;
  return span < 0 ? 0 : span / a.stride + 1;
}

kernels::ConvBatchNormProblem ConvolutionLayer::FoldedProblem() const {
  return {conv_, batch_norm_->eps(), absorbed_.relu()};
}

Status ConvolutionLayer::ReshapeKernel() {
  DT_RETURN_IF_ERROR(UpdateKernel(kernel_, kernels::ConvolutionProblem{conv_, bias_term_}));
  if (!batch_norm_) return Status::Ok();
  mean_.resize(num_output_);
  variance_.resize(num_output_);
  return UpdateKernel(folded_, FoldedProblem());
}

bool ConvolutionLayer::Absorb(Layer& next) {
  if (batch_norm_) return absorbed_.Absorb(next);
  return AbsorbBatchNorm(next);
}

// A BatchNorm is taken only where one of the fused kernels applies (the header) and the op's list
// accepts the problem on this layer's engine.
bool ConvolutionLayer::AbsorbBatchNorm(Layer& next) {
  auto* batch_norm = dynamic_cast<BatchNormLayer*>(&next);
  if (!batch_norm || !batch_norm->batch_statistics() || bias_term_ || num_bottoms_ != 1 ||
      axes_.size() != 2 || channel_axis_ != 1) {
    return false;
  }
  const kernels::Window2d& w = window_;
  const bool pointwise = w.IsPointwise() && w.dilation_h == 1 && w.dilation_w == 1 && group_ == 1;
  const bool widens =
      static_cast<int64_t>(channels_) * channels_ <= 8 * static_cast<int64_t>(num_output_);
  // Depthwise: at stride 1, or where the output has at least 56 x 56 = 3136 pixels (strided and
  // smaller, the kernel's backward pass ran slower than oneDNN's depthwise kernels and the
  // separate BatchNorm: the header).
  const bool depthwise = group_ == channels_ && num_output_ == channels_ &&
                         ((w.stride_h == 1 && w.stride_w == 1) ||
                          static_cast<int64_t>(conv_.out_h) * conv_.out_w >= 56 * 56);
  if (!(pointwise && widens) && !depthwise) return false;
  batch_norm_ = batch_norm;
  absorbed_.Reset(num_output_);
  std::string report;
  const kernels::KernelRequest request{engine_, /*training=*/true, scratch_};
  if (!kernels::ChooseKernel(FoldedProblem(), request, &report).ok()) {
    batch_norm_ = nullptr;
    return false;
  }
  return true;
}

Status ConvolutionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (batch_norm_) return FoldedForward(*bottom[0], top[0]);
  const float* weights = blobs_[0]->data();
  const float* bias = bias_term_ ? blobs_[1]->data() : nullptr;
  const kernels::KernelLayouts layouts = kernel_->layouts();
  for (size_t i = 0; i < bottom.size(); ++i) {
    kernel_->Forward(bottom[i]->data_in(layouts.src), weights, bias, top[i]->data_to(layouts.dst));
  }
  return Status::Ok();
}

void ConvolutionLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                    const TensorVec& bottom) {
  if (batch_norm_) return FoldedBackward(top[0], propagate_down[0], bottom[0]);
  float* weight_diff = param_propagate_down(0) ? blobs_[0]->mutable_diff() : nullptr;
  float* bias_diff = bias_term_ && param_propagate_down(1) ? blobs_[1]->mutable_diff() : nullptr;
  const kernels::KernelLayouts layouts = kernel_->layouts();
  for (size_t i = 0; i < top.size(); ++i) {
    const float* src = bottom[i]->data_in(layouts.src);
    const float* diff_dst = top[i]->diff_in(layouts.dst);
    kernel_->Backward(src, diff_dst, blobs_[0]->data(),
                      propagate_down[i] ? bottom[i]->diff_to(layouts.src) : nullptr, weight_diff,
                      bias_diff);
  }
}

Status ConvolutionLayer::FoldedForward(const Tensor& bottom, Tensor* top) {
  const kernels::KernelLayouts layouts = folded_->layouts();
  folded_->Forward(bottom.data_in(layouts.src), blobs_[0]->data(), absorbed_.scale(),
                   absorbed_.shift(), top->data_to(layouts.dst), mean_.data(), variance_.data());
  batch_norm_->TakeBatchStatistics(mean_.data(), variance_.data());
  return Status::Ok();
}

void ConvolutionLayer::FoldedBackward(Tensor* top, bool propagate_down, Tensor* bottom) {
  const kernels::KernelLayouts layouts = folded_->layouts();
  const float* src = bottom->data_in(layouts.src);
  const float* dst = top->data_in(layouts.dst);
  // The kernel works in the top's diff (it is the blob's last reader): current in its layout.
  const float* diff_dst = top->diff_in(layouts.dst);
  float* work = top->diff_to(layouts.dst);
  DT_CHECK(work == diff_dst);
  folded_->Backward(src, dst, work, blobs_[0]->data(), absorbed_.scale(),
                    propagate_down ? bottom->diff_to(layouts.src) : nullptr,
                    param_propagate_down(0) ? blobs_[0]->mutable_diff() : nullptr,
                    absorbed_.diff_scale(), absorbed_.diff_shift());
  absorbed_.AddDiffs();
}

}  // namespace dtrain
