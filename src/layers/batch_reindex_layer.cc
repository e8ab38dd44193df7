#include "layers/batch_reindex_layer.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace dtrain {

Status BatchReindexLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const Tensor& data = *bottom[0];
  const Tensor& indices = *bottom[1];
  if (indices.num_axes() != 1) {
    return Error("the indices (bottom 1) must have exactly 1 axis, got " + indices.ShapeString());
  }
  if (data.num_axes() < 1) {
    return Error("the data (bottom 0) needs at least 1 axis, got " + data.ShapeString());
  }
  std::vector<int> shape = data.shape();
  shape[0] = indices.shape(0);
  top[0]->Reshape(shape);
  return Status::Ok();
}

Status BatchReindexLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int items = bottom[0]->shape(0);
  const float* index = bottom[1]->data();
  for (int64_t m = 0; m < bottom[1]->count(); ++m) {
    if (std::isnan(index[m])) {
      return Error("index at position " + std::to_string(m) + " of bottom 1 is not a number");
    }
    if (index[m] < 0) {
      return Error("index " + std::to_string(index[m]) + " at position " + std::to_string(m) +
                   " of bottom 1 is negative");
    }
    if (index[m] >= items) {
      return Error("index " + std::to_string(index[m]) + " at position " + std::to_string(m) +
                   " of bottom 1 is not below the batch size " + std::to_string(items));
    }
  }
  const int64_t dim = bottom[0]->count(1);
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  for (int64_t m = 0; m < bottom[1]->count(); ++m) {
    const float* src = x + static_cast<int64_t>(index[m]) * dim;
    std::copy(src, src + dim, y + m * dim);
  }
  return Status::Ok();
}

void BatchReindexLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                     const TensorVec& bottom) {
  // The indices get no gradient (BottomHasGradient).
  if (!propagate_down[0]) return;
  const int64_t dim = bottom[0]->count(1);
  const float* index = bottom[1]->data();
  const float* dy = top[0]->diff();
  bottom[0]->SetDiff(0.f);
  float* dx = bottom[0]->mutable_diff();
  for (int64_t m = 0; m < bottom[1]->count(); ++m) {
    float* dst = dx + static_cast<int64_t>(index[m]) * dim;
    for (int64_t j = 0; j < dim; ++j) dst[j] += dy[m * dim + j];
  }
}

}  // namespace dtrain
