#include "layers/im2col_layer.h"

#include "kernels/reference/im2col.h"
#include "layers/base_convolution_layer.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status Im2colLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  Status window = ReadConvolutionWindow(param_.convolution_param(), &window_);
  if (!window.ok()) return Error(window.message());
  return Status::Ok();
}

Status Im2colLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const Tensor& in = *bottom[0];
  if (in.num_axes() != 4) {
    return Error("needs a 4-D (N, C, H, W) bottom, got shape " + in.ShapeString());
  }
  channels_ = in.shape(1);
  height_ = in.shape(2);
  width_ = in.shape(3);
  const kernels::Window2d& w = window_;
  const int out_h = kernels::ConvOutputSize(height_, w.kernel_h, w.pad_h, w.stride_h, w.dilation_h);
  const int out_w = kernels::ConvOutputSize(width_, w.kernel_w, w.pad_w, w.stride_w, w.dilation_w);
  if (out_h <= 0 || out_w <= 0) {
    return Error("the dilated kernel " + std::to_string(w.DilatedKernelH()) + "x" +
                 std::to_string(w.DilatedKernelW()) + " is larger than the padded input of " +
                 "bottom shape " + in.ShapeString());
  }
  top[0]->Reshape({in.shape(0), channels_ * w.kernel_h * w.kernel_w, out_h, out_w});
  return Status::Ok();
}

Status Im2colLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int64_t in_item = bottom[0]->count(1), out_item = top[0]->count(1);
  for (int n = 0; n < bottom[0]->shape(0); ++n) {
    reference::Im2Col(bottom[0]->data() + n * in_item, channels_, height_, width_, window_,
                      top[0]->mutable_data() + n * out_item);
  }
  return Status::Ok();
}

void Im2colLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                               const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const int64_t in_item = bottom[0]->count(1), out_item = top[0]->count(1);
  for (int n = 0; n < bottom[0]->shape(0); ++n) {
    reference::Col2Im(top[0]->diff() + n * out_item, channels_, height_, width_, window_,
                      bottom[0]->mutable_diff() + n * in_item);
  }
}

}  // namespace dtrain
