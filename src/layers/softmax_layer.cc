#include "layers/softmax_layer.h"

#include <algorithm>
#include <cmath>

#include "proto/layer_params.pb.h"

namespace dtrain {

Status SoftmaxLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const int axis = param_.softmax_param().axis();
  const int n = bottom[0]->num_axes();
  if (axis < -n || axis >= n) {
    return Error("axis " + std::to_string(axis) + " is out of range for bottom " +
                 bottom[0]->ShapeString());
  }
  const int a = bottom[0]->CanonicalAxisIndex(axis);
  outer_ = bottom[0]->count(0, a);
  channels_ = bottom[0]->shape(a);
  inner_ = bottom[0]->count(a + 1);
  top[0]->ReshapeLike(*bottom[0]);
  // Implementation list: oneDNN, then the loops below.
  const onednn::SoftmaxProblem problem{outer_, channels_, inner_};
  StatusOr<bool> changed = kernel_.Update(
      engine_, problem, [&] { return onednn::Softmax::Create(problem, /*training=*/true); },
      &engine_report_);
  if (!changed.ok()) return Error(changed.status().message());
  return Status::Ok();
}

Status SoftmaxLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (onednn::Softmax* fast = kernel_.fast()) {
    fast->Forward(bottom[0]->data(), top[0]->mutable_data());
    return Status::Ok();
  }
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t in = 0; in < inner_; ++in) {
      const int64_t base = o * channels_ * inner_ + in;
      float max = x[base];
      for (int c = 1; c < channels_; ++c) max = std::max(max, x[base + c * inner_]);
      float sum = 0.f;
      for (int c = 0; c < channels_; ++c) {
        y[base + c * inner_] = std::exp(x[base + c * inner_] - max);
        sum += y[base + c * inner_];
      }
      for (int c = 0; c < channels_; ++c) y[base + c * inner_] /= sum;
    }
  }
  return Status::Ok();
}

void SoftmaxLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  if (onednn::Softmax* fast = kernel_.fast()) {
    fast->Backward(top[0]->data(), top[0]->diff(), bottom[0]->mutable_diff());
    return;
  }
  const float* y = top[0]->data();
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t in = 0; in < inner_; ++in) {
      const int64_t base = o * channels_ * inner_ + in;
      float dot = 0.f;
      for (int c = 0; c < channels_; ++c) dot += dy[base + c * inner_] * y[base + c * inner_];
      for (int c = 0; c < channels_; ++c) {
        const int64_t k = base + c * inner_;
        dx[k] = (dy[k] - dot) * y[k];
      }
    }
  }
}

}  // namespace dtrain
