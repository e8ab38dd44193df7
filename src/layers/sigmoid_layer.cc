#include "layers/sigmoid_layer.h"

#include <cmath>

namespace dtrain {

Status SigmoidLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->ReshapeLike(*bottom[0]);
  return Status::Ok();
}

Status SigmoidLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  // The tanh form never overflows, as in Caffe.
  for (int64_t i = 0; i < bottom[0]->count(); ++i) y[i] = 0.5f * std::tanh(0.5f * x[i]) + 0.5f;
  return Status::Ok();
}

void SigmoidLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const float* y = top[0]->data();
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  for (int64_t i = 0; i < top[0]->count(); ++i) dx[i] = dy[i] * y[i] * (1.f - y[i]);
}

}  // namespace dtrain
