#include "layers/bias_layer.h"

#include <algorithm>

#include "core/filler.h"
#include "layers/broadcast_axes.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status BiasLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  if (bottom.size() == 2) {
    if (!blobs_.empty()) return Error("has a bias bottom, so it takes no learned blobs");
    return Status::Ok();
  }
  if (!blobs_.empty()) {
    if (blobs_.size() != 1) {
      return Error("expected 1 learned blob, got " + std::to_string(blobs_.size()));
    }
    return Status::Ok();  // shape checked in Reshape
  }
  const BiasParameter& p = param_.bias_param();
  StatusOr<std::vector<int>> shape = LearnedOperandShape(*bottom[0], p.axis(), p.num_axes());
  if (!shape.ok()) return Error(shape.status().message());
  blobs_.push_back(std::make_shared<Tensor>(*shape));
  const Status valid = ValidateFiller(p.filler());
  if (!valid.ok()) return Error(valid.message());
  DT_RETURN_IF_ERROR(Fill(p.filler(), rng_, blobs_[0].get()));
  return Status::Ok();
}

Status BiasLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  const Tensor& b = bottom.size() > 1 ? *bottom[1] : *blobs_[0];
  StatusOr<BroadcastView> view = BroadcastOver(x, b, param_.bias_param().axis(), "bias");
  if (!view.ok()) return Error(view.status().message());
  outer_ = view->outer;
  dim_ = view->dim;
  inner_ = view->inner;
  top[0]->ReshapeLike(x);
  return Status::Ok();
}

Status BiasLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* x = bottom[0]->data();
  const float* b = bottom.size() > 1 ? bottom[1]->data() : blobs_[0]->data();
  float* y = top[0]->mutable_data();
  int64_t k = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t d = 0; d < dim_; ++d) {
      for (int64_t i = 0; i < inner_; ++i, ++k) y[k] = x[k] + b[d];
    }
  }
  return Status::Ok();
}

void BiasLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  const float* dy = top[0]->diff();
  if (propagate_down[0] && bottom[0] != top[0]) {
    std::copy(dy, dy + top[0]->count(), bottom[0]->mutable_diff());
  }
  const bool learned = bottom.size() == 1;
  if (learned ? !param_propagate_down(0) : !propagate_down[1]) return;
  float* db = learned ? blobs_[0]->mutable_diff() : bottom[1]->mutable_diff();
  if (!learned) std::fill(db, db + dim_, 0.f);
  int64_t k = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t d = 0; d < dim_; ++d) {
      float sum = 0.f;
      for (int64_t i = 0; i < inner_; ++i, ++k) sum += dy[k];
      db[d] += sum;
    }
  }
}

}  // namespace dtrain
