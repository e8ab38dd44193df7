#include "layers/concat_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"

namespace dtrain {

Status ConcatLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const ConcatParameter& p = param_.concat_param();
  if (p.has_axis() && p.has_concat_dim()) {
    return Error("give either axis or concat_dim, not both");
  }
  return Status::Ok();
}

Status ConcatLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const ConcatParameter& p = param_.concat_param();
  const int num_axes = bottom[0]->num_axes();
  const int axis = p.has_concat_dim() ? static_cast<int>(p.concat_dim()) : p.axis();
  const bool in_range =
      p.has_concat_dim() ? (axis >= 0 && axis < num_axes) : (axis >= -num_axes && axis < num_axes);
  if (!in_range) {
    return Error("axis " + std::to_string(axis) + " is out of range for bottom[0] of shape " +
                 bottom[0]->ShapeString());
  }
  axis_ = axis < 0 ? axis + num_axes : axis;

  std::vector<int> top_shape = bottom[0]->shape();
  for (size_t i = 1; i < bottom.size(); ++i) {
    bool match = bottom[i]->num_axes() == num_axes;
    for (int j = 0; match && j < num_axes; ++j) {
      match = j == axis_ || bottom[i]->shape(j) == top_shape[j];
    }
    if (!match) {
      return Error("bottoms must have equal shapes except along axis " + std::to_string(axis_) +
                   ": bottom[0] is " + bottom[0]->ShapeString() + ", bottom[" + std::to_string(i) +
                   "] is " + bottom[i]->ShapeString());
    }
    top_shape[axis_] += bottom[i]->shape(axis_);
  }
  top[0]->Reshape(top_shape);
  num_concats_ = bottom[0]->count(0, axis_);
  inner_ = bottom[0]->count(axis_ + 1);
  if (bottom.size() == 1) {
    top[0]->ShareData(*bottom[0]);
    top[0]->ShareDiff(*bottom[0]);
    return Status::Ok();
  }
  // Implementation list: oneDNN, then the copies below. The problem is updated in place so that
  // a steady-state Reshape allocates nothing.
  problem_.axis = axis_;
  problem_.srcs.resize(bottom.size());
  for (size_t i = 0; i < bottom.size(); ++i) {
    problem_.srcs[i].assign(bottom[i]->shape().begin(), bottom[i]->shape().end());
  }
  StatusOr<bool> changed = kernel_.Update(
      engine_, problem_, [&] { return onednn::Concat::Create(problem_, /*training=*/true); },
      &engine_report_);
  if (!changed.ok()) return Error(changed.status().message());
  return Status::Ok();
}

Status ConcatLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (bottom.size() == 1) return Status::Ok();
  if (onednn::Concat* fast = kernel_.fast()) {
    sources_.resize(bottom.size());
    for (size_t i = 0; i < bottom.size(); ++i) sources_[i] = bottom[i]->data();
    fast->Forward(sources_, top[0]->mutable_data());
    return Status::Ok();
  }
  float* y = top[0]->mutable_data();
  const int64_t top_block = top[0]->shape(axis_) * inner_;
  int64_t offset = 0;  // where this bottom starts within a top block
  for (Tensor* b : bottom) {
    const int64_t block = b->shape(axis_) * inner_;
    const float* x = b->data();
    for (int64_t n = 0; n < num_concats_; ++n) {
      std::copy(x + n * block, x + (n + 1) * block, y + n * top_block + offset);
    }
    offset += block;
  }
  return Status::Ok();
}

void ConcatLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                               const TensorVec& bottom) {
  if (bottom.size() == 1) return;
  if (onednn::Concat* fast = kernel_.fast()) {
    for (size_t i = 0; i < bottom.size(); ++i) {
      if (propagate_down[i]) {
        fast->Backward(static_cast<int>(i), top[0]->diff(), bottom[i]->mutable_diff());
      }
    }
    return;
  }
  const float* dy = top[0]->diff();
  const int64_t top_block = top[0]->shape(axis_) * inner_;
  int64_t offset = 0;
  for (size_t i = 0; i < bottom.size(); ++i) {
    const int64_t block = bottom[i]->shape(axis_) * inner_;
    if (propagate_down[i]) {
      float* dx = bottom[i]->mutable_diff();
      for (int64_t n = 0; n < num_concats_; ++n) {
        const float* src = dy + n * top_block + offset;
        std::copy(src, src + block, dx + n * block);
      }
    }
    offset += block;
  }
}

}  // namespace dtrain
