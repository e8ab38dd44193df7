#include "layers/neuron_layer.h"

#include <algorithm>

namespace dtrain {

Status NeuronLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0] && !AllowsInPlace()) {
    return Error(
        "does not run in place (as in Caffe): give its top a name other than its bottom's");
  }
  top[0]->ReshapeLike(*bottom[0]);
  if (KeepsInput(bottom, top)) input_.ReshapeLike(*bottom[0]);
  return Status::Ok();
}

Status NeuronLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int64_t n = bottom[0]->count();
  if (KeepsInput(bottom, top))
    std::copy(bottom[0]->data(), bottom[0]->data() + n, input_.mutable_data());
  ForwardElements(bottom[0]->data(), top[0]->mutable_data(), n);
  return Status::Ok();
}

void NeuronLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                               const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const float* x = KeepsInput(bottom, top) ? input_.data() : bottom[0]->data();
  BackwardElements(x, top[0]->data(), top[0]->diff(), bottom[0]->mutable_diff(), top[0]->count());
}

}  // namespace dtrain
