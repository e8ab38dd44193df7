#include "layers/convolution_layer.h"

namespace dtrain {

int ConvolutionLayer::OutputSize(int in, int kernel, int pad, int stride, int dilation) const {
  return kernels::ConvOutputSize(in, kernel, pad, stride, dilation);
}

Status ConvolutionLayer::ReshapeKernel() {
  return UpdateKernel(kernel_, kernels::ConvolutionProblem{conv_, bias_term_});
}

Status ConvolutionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
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

}  // namespace dtrain
