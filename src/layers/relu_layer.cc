#include "layers/relu_layer.h"

#include "proto/layer_params.pb.h"

namespace dtrain {

Status ReLULayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->ReshapeLike(*bottom[0]);
  return UpdateKernel(
      kernel_, kernels::ReluProblem{bottom[0]->count(), param_.relu_param().negative_slope()});
}

Status ReLULayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  kernel_->Forward(bottom[0]->data(), top[0]->mutable_data());
  return Status::Ok();
}

void ReLULayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  kernel_->Backward(bottom[0]->data(), top[0]->data(), top[0]->diff(), bottom[0]->mutable_diff());
}

}  // namespace dtrain
