#include "layers/permute_layer.h"

#include <algorithm>
#include <string>

#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status PermuteLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const PermuteParameter& p = param_.permute_param();
  const int axes = bottom[0]->num_axes();
  std::vector<bool> named(axes, false);
  order_.clear();
  for (const uint32_t axis : p.order()) {
    if (axis >= static_cast<uint32_t>(axes)) {
      return Error("permute_param.order " + std::to_string(axis) +
                   " is not an axis of the bottom, whose shape " + bottom[0]->ShapeString() +
                   " has " + std::to_string(axes) + " axes");
    }
    if (named[axis]) {
      return Error("permute_param.order names axis " + std::to_string(axis) + " twice");
    }
    named[axis] = true;
    order_.push_back(static_cast<int>(axis));
  }
  for (int axis = 0; axis < axes; ++axis) {
    if (!named[axis]) order_.push_back(axis);
  }
  return Status::Ok();
}

Status PermuteLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const Tensor& in = *bottom[0];
  const int axes = static_cast<int>(order_.size());
  if (in.num_axes() != axes) {
    return Error("bottom must keep its " + std::to_string(axes) + " axes, got shape " +
                 in.ShapeString());
  }
  top_shape_.resize(axes);
  source_strides_.resize(axes);
  for (int i = 0; i < axes; ++i) {
    top_shape_[i] = in.shape(order_[i]);
    source_strides_[i] = in.count(order_[i] + 1);
  }
  top[0]->Reshape(top_shape_);
  return Status::Ok();
}

void PermuteLayer::Move(const float* from, float* to, bool inverse) const {
  const int axes = static_cast<int>(top_shape_.size());
  int64_t count = 1;
  for (const int d : top_shape_) count *= d;
  if (count == 0) return;
  if (axes == 0) {
    to[0] = from[0];
    return;
  }
  // An odometer over every top axis but the last, which the inner loop walks.
  const int last = axes - 1;
  const int inner = top_shape_[last];
  const int64_t inner_stride = source_strides_[last];
  std::vector<int> index(axes, 0);
  int64_t source = 0;
  for (int64_t t = 0; t < count; t += inner) {
    for (int k = 0; k < inner; ++k) {
      const int64_t s = source + k * inner_stride;
      if (inverse) {
        to[s] = from[t + k];
      } else {
        to[t + k] = from[s];
      }
    }
    for (int a = last - 1; a >= 0; --a) {
      source += source_strides_[a];
      if (++index[a] < top_shape_[a]) break;
      source -= source_strides_[a] * top_shape_[a];
      index[a] = 0;
    }
  }
}

Status PermuteLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  Move(bottom[0]->data(), top[0]->mutable_data(), /*inverse=*/false);
  return Status::Ok();
}

void PermuteLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  Move(top[0]->diff(), bottom[0]->mutable_diff(), /*inverse=*/true);
}

}  // namespace dtrain
