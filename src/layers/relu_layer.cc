#include "layers/relu_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"

namespace dtrain {

Status ReLULayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->ReshapeLike(*bottom[0]);
  // Implementation list: oneDNN, then the loops below.
  const onednn::ReluProblem problem{bottom[0]->count(), param_.relu_param().negative_slope()};
  StatusOr<bool> changed = kernel_.Update(
      engine_, problem, [&] { return onednn::Relu::Create(problem, /*training=*/true); },
      &engine_report_);
  if (!changed.ok()) return Error(changed.status().message());
  return Status::Ok();
}

Status ReLULayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (onednn::Relu* fast = kernel_.fast()) {
    fast->Forward(bottom[0]->data(), top[0]->mutable_data());
    return Status::Ok();
  }
  const float slope = param_.relu_param().negative_slope();
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  for (int64_t i = 0; i < bottom[0]->count(); ++i) {
    y[i] = std::max(x[i], 0.f) + slope * std::min(x[i], 0.f);
  }
  return Status::Ok();
}

void ReLULayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  if (onednn::Relu* fast = kernel_.fast()) {
    fast->Backward(top[0]->data(), top[0]->diff(), bottom[0]->mutable_diff());
    return;
  }
  const float slope = param_.relu_param().negative_slope();
  // In place, x is y; y > 0 exactly where x > 0 for any slope >= 0, as Caffe
  // assumes.
  const float* x = bottom[0]->data();
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  for (int64_t i = 0; i < bottom[0]->count(); ++i) dx[i] = x[i] > 0.f ? dy[i] : slope * dy[i];
}

}  // namespace dtrain
