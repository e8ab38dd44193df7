#include "layers/concat_layer.h"

#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

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
  const int axis_index = axis < 0 ? axis + num_axes : axis;

  std::vector<int> top_shape = bottom[0]->shape();
  for (size_t i = 1; i < bottom.size(); ++i) {
    bool match = bottom[i]->num_axes() == num_axes;
    for (int j = 0; match && j < num_axes; ++j) {
      match = j == axis_index || bottom[i]->shape(j) == top_shape[j];
    }
    if (!match) {
      return Error("bottoms must have equal shapes except along axis " +
                   std::to_string(axis_index) + ": bottom[0] is " + bottom[0]->ShapeString() +
                   ", bottom[" + std::to_string(i) + "] is " + bottom[i]->ShapeString());
    }
    top_shape[axis_index] += bottom[i]->shape(axis_index);
  }
  top[0]->Reshape(top_shape);
  if (bottom.size() == 1) {
    top[0]->ShareData(*bottom[0]);
    top[0]->ShareDiff(*bottom[0]);
    return Status::Ok();
  }
  problem_.axis = axis_index;
  problem_.srcs.resize(bottom.size());
  for (size_t i = 0; i < bottom.size(); ++i) {
    problem_.srcs[i].assign(bottom[i]->shape().begin(), bottom[i]->shape().end());
  }
  return UpdateKernel(kernel_, problem_);
}

Status ConcatLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (bottom.size() == 1) return Status::Ok();
  sources_.resize(bottom.size());
  for (size_t i = 0; i < bottom.size(); ++i) {
    sources_[i] = bottom[i]->data_in(kernel_->input_layout(static_cast<int>(i)));
  }
  kernel_->Forward(sources_, top[0]->data_to(kernel_->layouts().dst));
  return Status::Ok();
}

void ConcatLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                               const TensorVec& bottom) {
  if (bottom.size() == 1) return;
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (!propagate_down[i]) continue;
    const float* diff_dst = top[0]->diff_in(kernel_->layouts().dst);
    kernel_->Backward(static_cast<int>(i), {}, nullptr, diff_dst,  // srcs, dst: not read
                      bottom[i]->diff_to(kernel_->input_layout(static_cast<int>(i))));
  }
}

}  // namespace dtrain
