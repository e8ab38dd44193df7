#include "layers/filter_layer.h"

#include <algorithm>
#include <string>

namespace dtrain {

bool FilterLayer::BottomHasGradient(int bottom_index) const {
  return bottom_index != num_bottoms_ - 1;
}

Status FilterLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  num_bottoms_ = static_cast<int>(bottom.size());
  if (top.size() != bottom.size() - 1) {
    return Error("needs one top per filtered bottom (bottoms but the last, the selector): " +
                 std::to_string(bottom.size() - 1) + " top(s) for " +
                 std::to_string(bottom.size()) + " bottoms, got " + std::to_string(top.size()));
  }
  for (size_t k = 0; k < top.size(); ++k) {
    for (const Tensor* b : bottom) {
      if (top[k] == b) return Error("cannot run in place");
    }
  }
  return Status::Ok();
}

void FilterLayer::ReshapeTops(const TensorVec& bottom, const TensorVec& top, int items) const {
  for (size_t k = 0; k < top.size(); ++k) {
    std::vector<int> shape = bottom[k]->shape();
    shape[0] = items;
    top[k]->Reshape(shape);
  }
}

Status FilterLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& selector = *bottom.back();
  if (selector.num_axes() < 1) {
    return Error("the selector (last bottom) needs at least 1 axis, got " + selector.ShapeString());
  }
  for (int i = 1; i < selector.num_axes(); ++i) {
    if (selector.shape(i) != 1) {
      return Error("the selector (last bottom) must have size 1 on every axis but the first, got " +
                   selector.ShapeString());
    }
  }
  for (size_t k = 0; k + 1 < bottom.size(); ++k) {
    if (bottom[k]->num_axes() < 1 || bottom[k]->shape(0) != selector.shape(0)) {
      return Error("bottom " + std::to_string(k) + " " + bottom[k]->ShapeString() +
                   " needs as many items (axis 0) as the selector " + selector.ShapeString());
    }
  }
  ReshapeTops(bottom, top, selector.shape(0));
  return Status::Ok();
}

Status FilterLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& selector = *bottom.back();
  selected_.clear();
  for (int i = 0; i < selector.shape(0); ++i) {
    if (selector.data()[i] != 0.f) selected_.push_back(i);
  }
  ReshapeTops(bottom, top, static_cast<int>(selected_.size()));
  for (size_t k = 0; k < top.size(); ++k) {
    const int64_t dim = bottom[k]->count(1);
    const float* x = bottom[k]->data();
    float* y = top[k]->mutable_data();
    for (size_t n = 0; n < selected_.size(); ++n) {
      std::copy(x + selected_[n] * dim, x + (selected_[n] + 1) * dim, y + n * dim);
    }
  }
  return Status::Ok();
}

void FilterLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                               const TensorVec& bottom) {
  // The selector gets no gradient (BottomHasGradient).
  for (size_t k = 0; k < top.size(); ++k) {
    if (!propagate_down[k]) continue;
    const int64_t dim = bottom[k]->count(1);
    const float* dy = top[k]->diff();
    bottom[k]->SetDiff(0.f);
    float* dx = bottom[k]->mutable_diff();
    for (size_t n = 0; n < selected_.size(); ++n) {
      std::copy(dy + n * dim, dy + (n + 1) * dim, dx + selected_[n] * dim);
    }
  }
}

}  // namespace dtrain
