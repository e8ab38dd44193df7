#include "layers/split_layer.h"

#include <algorithm>

namespace dtrain {

Status SplitLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (size_t i = 0; i < top.size(); ++i) {
    if (top[i] == bottom[0]) return Error("cannot run in place (top " + std::to_string(i) + ")");
    top[i]->ReshapeLike(*bottom[0]);
    top[i]->ShareData(*bottom[0]);
  }
  return Status::Ok();
}

Status SplitLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  // Tops already share the bottom's data (Reshape).
  return Status::Ok();
}

void SplitLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                              const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const int64_t n = bottom[0]->count();
  float* dx = bottom[0]->mutable_diff();
  std::copy(top[0]->diff(), top[0]->diff() + n, dx);
  for (size_t t = 1; t < top.size(); ++t) {
    const float* dy = top[t]->diff();
    for (int64_t i = 0; i < n; ++i) dx[i] += dy[i];
  }
}

}  // namespace dtrain
