#include "layers/convolution_layer.h"

namespace dtrain {

using reference::BiasBackward;
using reference::BiasForward;

int ConvolutionLayer::OutputSize(int in, int kernel, int pad, int stride, int dilation) const {
  return reference::ConvOutputSize(in, kernel, pad, stride, dilation);
}

// Implementation list: oneDNN, then the reference im2col + sgemm.
Status ConvolutionLayer::ReshapeKernel() {
  StatusOr<bool> changed = kernel_.Update(
      engine_, conv_,
      [&] { return onednn::Convolution::Create(conv_, bias_term_, /*training=*/true, scratch_); },
      &engine_report_);
  if (!changed.ok()) return Error(changed.status().message());
  if (kernel_.fast()) {
    std::vector<float>().swap(col_buffer_);
    return Status::Ok();
  }
  return BaseConvolutionLayer::ReshapeKernel();
}

Status ConvolutionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* weights = blobs_[0]->data();
  const float* bias = bias_term_ ? blobs_[1]->data() : nullptr;
  const int spatial = conv_.out_h * conv_.out_w;
  onednn::Convolution* fast = kernel_.fast();
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (fast) {
      fast->Forward(bottom[i]->data(), weights, bias, top[i]->mutable_data());
      continue;
    }
    reference::ConvolutionForward(conv_, bottom[i]->data(), weights, top[i]->mutable_data(),
                                  col_buffer_.data());
    if (bias) BiasForward(conv_.batch, num_output_, spatial, bias, top[i]->mutable_data());
  }
  return Status::Ok();
}

void ConvolutionLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                    const TensorVec& bottom) {
  const int spatial = conv_.out_h * conv_.out_w;
  float* weight_diff = param_propagate_down(0) ? blobs_[0]->mutable_diff() : nullptr;
  float* bias_diff = bias_term_ && param_propagate_down(1) ? blobs_[1]->mutable_diff() : nullptr;
  onednn::Convolution* fast = kernel_.fast();
  for (size_t i = 0; i < top.size(); ++i) {
    const float* top_diff = top[i]->diff();
    float* bottom_diff = propagate_down[i] ? bottom[i]->mutable_diff() : nullptr;
    if (fast) {
      fast->Backward(bottom[i]->data(), top_diff, blobs_[0]->data(), bottom_diff, weight_diff,
                     bias_diff);
      continue;
    }
    if (bias_diff) BiasBackward(conv_.batch, num_output_, spatial, top_diff, bias_diff);
    if (weight_diff) {
      reference::ConvolutionBackwardWeights(conv_, bottom[i]->data(), top_diff, weight_diff,
                                            col_buffer_.data());
    }
    if (bottom_diff) {
      reference::ConvolutionBackwardData(conv_, top_diff, blobs_[0]->data(), bottom_diff,
                                         col_buffer_.data());
    }
  }
}

}  // namespace dtrain
