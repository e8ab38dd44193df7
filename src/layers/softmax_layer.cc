#include "layers/softmax_layer.h"

#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status SoftmaxLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const int axis = param_.softmax_param().axis();
  const int n = bottom[0]->num_axes();
  if (axis < -n || axis >= n) {
    return Error("axis " + std::to_string(axis) + " is out of range for bottom " +
                 bottom[0]->ShapeString());
  }
  const int a = bottom[0]->CanonicalAxisIndex(axis);
  top[0]->ReshapeLike(*bottom[0]);
  return UpdateKernel(kernel_, kernels::SoftmaxProblem{bottom[0]->count(0, a), bottom[0]->shape(a),
                                                       bottom[0]->count(a + 1)});
}

Status SoftmaxLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  kernel_->Forward(bottom[0]->data(), top[0]->mutable_data());
  return Status::Ok();
}

void SoftmaxLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  kernel_->Backward(bottom[0]->data(), top[0]->data(), top[0]->diff(), bottom[0]->mutable_diff());
}

}  // namespace dtrain
