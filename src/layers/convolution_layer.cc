#include "layers/convolution_layer.h"

namespace dtrain {

using reference::BiasBackward;
using reference::BiasForward;

int ConvolutionLayer::OutputSize(int in, int kernel, int pad, int stride, int dilation) const {
  return reference::ConvOutputSize(in, kernel, pad, stride, dilation);
}

Status ConvolutionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* weights = blobs_[0]->data();
  const int spatial = conv_.out_h * conv_.out_w;
  for (size_t i = 0; i < bottom.size(); ++i) {
    reference::ConvolutionForward(conv_, bottom[i]->data(), weights, top[i]->mutable_data(),
                                  col_buffer_.data());
    if (bias_term_)
      BiasForward(conv_.batch, num_output_, spatial, blobs_[1]->data(), top[i]->mutable_data());
  }
  return Status::Ok();
}

void ConvolutionLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                    const TensorVec& bottom) {
  const int spatial = conv_.out_h * conv_.out_w;
  for (size_t i = 0; i < top.size(); ++i) {
    const float* top_diff = top[i]->diff();
    if (bias_term_ && param_propagate_down(1)) {
      BiasBackward(conv_.batch, num_output_, spatial, top_diff, blobs_[1]->mutable_diff());
    }
    if (param_propagate_down(0)) {
      reference::ConvolutionBackwardWeights(conv_, bottom[i]->data(), top_diff,
                                            blobs_[0]->mutable_diff(), col_buffer_.data());
    }
    if (propagate_down[i]) {
      reference::ConvolutionBackwardData(conv_, top_diff, blobs_[0]->data(),
                                         bottom[i]->mutable_diff(), col_buffer_.data());
    }
  }
}

}  // namespace dtrain
