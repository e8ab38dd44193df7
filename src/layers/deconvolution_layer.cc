#include "layers/deconvolution_layer.h"

#include "kernels/reference/convolution.h"

namespace dtrain {

// The kernel problem conv_ runs from top (its src) to bottom (its dst); see
// BaseConvolutionLayer. So this layer's forward is the convolution's backward-data, and its
// backward-data is the convolution's forward. The kernel's layouts: src for the top, dst for
// the bottom. Its problem has no bias: the layer's bias belongs to the top.

Status DeconvolutionLayer::ReshapeKernel() {
  return UpdateKernel(kernel_, kernels::ConvolutionProblem{conv_, /*bias=*/false});
}

int64_t DeconvolutionLayer::OutputSize(const kernels::SpatialAxis& a, int in) const {
  return int64_t{a.stride} * (in - 1) + int64_t{a.dilation} * (a.kernel - 1) + 1 -
         2 * int64_t{a.pad};
}

Status DeconvolutionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* weights = blobs_[0]->data();
  const kernels::KernelLayouts layouts = kernel_->layouts();
  const int spatial = static_cast<int>(conv_.InPixels());  // the top's pixels
  for (size_t i = 0; i < bottom.size(); ++i) {
    kernel_->Backward(nullptr, bottom[i]->data_in(layouts.dst), weights,
                      top[i]->data_to(layouts.src), nullptr, nullptr);
    if (bias_term_) {
      reference::BiasForward(conv_.batch, num_output_, spatial, blobs_[1]->data(),
                             top[i]->mutable_data());
    }
  }
  return Status::Ok();
}

void DeconvolutionLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                      const TensorVec& bottom) {
  const kernels::KernelLayouts layouts = kernel_->layouts();
  const int spatial = static_cast<int>(conv_.InPixels());
  for (size_t i = 0; i < top.size(); ++i) {
    if (bias_term_ && param_propagate_down(1)) {
      reference::BiasBackward(conv_.batch, num_output_, spatial, top[i]->diff(),
                              blobs_[1]->mutable_diff());
    }
    const float* top_diff = top[i]->diff_in(layouts.src);
    if (param_propagate_down(0)) {
      kernel_->Backward(top_diff, bottom[i]->data_in(layouts.dst), blobs_[0]->data(), nullptr,
                        blobs_[0]->mutable_diff(), nullptr);
    }
    if (propagate_down[i]) {
      kernel_->Forward(top_diff, blobs_[0]->data(), nullptr, bottom[i]->diff_to(layouts.dst));
    }
  }
}

}  // namespace dtrain
