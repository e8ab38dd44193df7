#include "layers/tile_layer.h"

#include <algorithm>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status TileLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const TileParameter& p = param_.tile_param();
  const Tensor& x = *bottom[0];
  const int n = x.num_axes();
  if (p.axis() < -n || p.axis() >= n) {
    return Error("tile_param.axis " + std::to_string(p.axis()) +
                 " is out of range for bottom of shape " + x.ShapeString());
  }
  if (!p.has_tiles()) return Error("tile_param.tiles must be given");
  if (p.tiles() <= 0) {
    return Error("tile_param.tiles must be positive, got " + std::to_string(p.tiles()));
  }
  const int axis = x.CanonicalAxisIndex(p.axis());
  tiles_ = p.tiles();
  outer_ = x.count(0, axis);
  inner_ = x.count(axis);
  std::vector<int> shape = x.shape();
  DT_ASSIGN_OR_RETURN(
      shape[axis], Dimension("the tiled axis (tile_param.tiles " + std::to_string(tiles_) + " x " +
                                 std::to_string(shape[axis]) + ")",
                             static_cast<int64_t>(shape[axis]) * tiles_, false));
  top[0]->Reshape(shape);
  return Status::Ok();
}

Status TileLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  for (int64_t i = 0; i < outer_; ++i, x += inner_) {
    for (int t = 0; t < tiles_; ++t, y += inner_) std::copy(x, x + inner_, y);
  }
  return Status::Ok();
}

void TileLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  for (int64_t i = 0; i < outer_; ++i, dx += inner_) {
    std::copy(dy, dy + inner_, dx);
    dy += inner_;
    for (int t = 1; t < tiles_; ++t, dy += inner_) {
      for (int64_t j = 0; j < inner_; ++j) dx[j] += dy[j];
    }
  }
}

}  // namespace dtrain
