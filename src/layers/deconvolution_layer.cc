#include "layers/deconvolution_layer.h"

#include "kernels/reference/convolution.h"

namespace dtrain {

// The kernel problem conv_ runs from top (its src) to bottom (its dst); see
// BaseConvolutionLayer. So this layer's forward is the convolution's backward-data, and its
// backward-data is the convolution's forward.

Status DeconvolutionLayer::ReshapeKernel() {
  col_buffer_.resize(reference::ColumnBufferSize(conv_));
  return Status::Ok();
}

int DeconvolutionLayer::OutputSize(int in, int kernel, int pad, int stride, int dilation) const {
  return stride * (in - 1) + dilation * (kernel - 1) + 1 - 2 * pad;
}

Status DeconvolutionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* weights = blobs_[0]->data();
  const int spatial = conv_.in_h * conv_.in_w;  // the top's pixels
  for (size_t i = 0; i < bottom.size(); ++i) {
    reference::ConvolutionBackwardData(conv_, bottom[i]->data(), weights, top[i]->mutable_data(),
                                       col_buffer_.data());
    if (bias_term_) {
      reference::BiasForward(conv_.batch, num_output_, spatial, blobs_[1]->data(),
                             top[i]->mutable_data());
    }
  }
  return Status::Ok();
}

void DeconvolutionLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                      const TensorVec& bottom) {
  const int spatial = conv_.in_h * conv_.in_w;
  for (size_t i = 0; i < top.size(); ++i) {
    const float* top_diff = top[i]->diff();
    if (bias_term_ && param_propagate_down(1)) {
      reference::BiasBackward(conv_.batch, num_output_, spatial, top_diff,
                              blobs_[1]->mutable_diff());
    }
    if (param_propagate_down(0)) {
      reference::ConvolutionBackwardWeights(conv_, top_diff, bottom[i]->data(),
                                            blobs_[0]->mutable_diff(), col_buffer_.data());
    }
    if (propagate_down[i]) {
      reference::ConvolutionForward(conv_, top_diff, blobs_[0]->data(), bottom[i]->mutable_diff(),
                                    col_buffer_.data());
    }
  }
}

}  // namespace dtrain
