#include "layers/relu_layer.h"

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ReLULayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->ReshapeLike(*bottom[0]);
  return UpdateKernel(
      kernel_, kernels::ReluProblem{bottom[0]->count(), param_.relu_param().negative_slope()});
}

Status ReLULayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  layout_ = ElementwiseLayout(bottom, false);
  const float* src = bottom[0]->data_in(layout_);  // before dst: they may be one buffer
  kernel_->Forward(src, top[0]->data_to(layout_));
  return Status::Ok();
}

void ReLULayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  // In the forward pass's layout, every read before the write (in place, they are one buffer).
  const float* src = bottom[0]->data_in(layout_);
  const float* dst = top[0]->data_in(layout_);
  const float* diff_dst = top[0]->diff_in(layout_);
  kernel_->Backward(src, dst, diff_dst, bottom[0]->diff_to(layout_));
}

}  // namespace dtrain
