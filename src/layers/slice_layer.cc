#include "layers/slice_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status SliceLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const SliceParameter& p = param_.slice_param();
  if (p.has_axis() && p.has_slice_dim()) return Error("give either axis or slice_dim, not both");
  if (p.slice_point_size() > 0 && p.slice_point_size() != static_cast<int>(top.size()) - 1) {
    return Error("needs one slice_point fewer than tops (" + std::to_string(top.size()) +
                 "), got " + std::to_string(p.slice_point_size()));
  }
  return Status::Ok();
}

Status SliceLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const SliceParameter& p = param_.slice_param();
  const int num_axes = bottom[0]->num_axes();
  const int axis = p.has_slice_dim() ? static_cast<int>(p.slice_dim()) : p.axis();
  const bool in_range =
      p.has_slice_dim() ? (axis >= 0 && axis < num_axes) : (axis >= -num_axes && axis < num_axes);
  if (!in_range) {
    return Error("axis " + std::to_string(axis) + " is out of range for bottom of shape " +
                 bottom[0]->ShapeString());
  }
  axis_ = axis < 0 ? axis + num_axes : axis;
  const int dim = bottom[0]->shape(axis_);
  const int num_tops = static_cast<int>(top.size());

  std::vector<int> sizes;
  if (p.slice_point_size() > 0) {
    int prev = 0;
    for (uint32_t point : p.slice_point()) {
      if (static_cast<int64_t>(point) <= prev || static_cast<int64_t>(point) >= dim) {
        return Error("slice_point values must increase strictly within (0, " + std::to_string(dim) +
                     ") for bottom " + bottom[0]->ShapeString() + ", got " + std::to_string(point));
      }
      sizes.push_back(static_cast<int>(point) - prev);
      prev = static_cast<int>(point);
    }
    sizes.push_back(dim - prev);
  } else {
    if (dim % num_tops != 0) {
      return Error(std::to_string(num_tops) + " tops do not evenly divide axis " +
                   std::to_string(axis_) + " of bottom " + bottom[0]->ShapeString());
    }
    sizes.assign(num_tops, dim / num_tops);
  }
  std::vector<int> shape = bottom[0]->shape();
  for (int i = 0; i < num_tops; ++i) {
    shape[axis_] = sizes[i];
    top[i]->Reshape(shape);
  }
  num_slices_ = bottom[0]->count(0, axis_);
  inner_ = bottom[0]->count(axis_ + 1);
  if (num_tops == 1) {
    top[0]->ShareData(*bottom[0]);
    top[0]->ShareDiff(*bottom[0]);
  }
  return Status::Ok();
}

Status SliceLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (top.size() == 1) return Status::Ok();
  const float* x = bottom[0]->data();
  const int64_t bottom_block = bottom[0]->shape(axis_) * inner_;
  int64_t offset = 0;
  for (Tensor* t : top) {
    const int64_t block = t->shape(axis_) * inner_;
    float* y = t->mutable_data();
    for (int64_t n = 0; n < num_slices_; ++n) {
      const float* src = x + n * bottom_block + offset;
      std::copy(src, src + block, y + n * block);
    }
    offset += block;
  }
  return Status::Ok();
}

void SliceLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                              const TensorVec& bottom) {
  if (!propagate_down[0] || top.size() == 1) return;
  float* dx = bottom[0]->mutable_diff();
  const int64_t bottom_block = bottom[0]->shape(axis_) * inner_;
  int64_t offset = 0;
  for (Tensor* t : top) {
    const int64_t block = t->shape(axis_) * inner_;
    const float* dy = t->diff();
    for (int64_t n = 0; n < num_slices_; ++n) {
      std::copy(dy + n * block, dy + (n + 1) * block, dx + n * bottom_block + offset);
    }
    offset += block;
  }
}

}  // namespace dtrain
