#include "layers/scale_layer.h"

#include <algorithm>

#include "core/filler.h"
#include "layers/broadcast_axes.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ScaleLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const ScaleParameter& p = param_.scale_param();
  const Tensor& x = *bottom[0];
  const bool learned_scale = bottom.size() == 1;
  const size_t want_blobs = (learned_scale ? 1 : 0) + (p.bias_term() ? 1 : 0);
  const bool preloaded = !blobs_.empty();
  if (preloaded && blobs_.size() != want_blobs) {
    return Error("expected " + std::to_string(want_blobs) + " learned blob(s), got " +
                 std::to_string(blobs_.size()));
  }
  if (learned_scale && !preloaded) {
    StatusOr<std::vector<int>> shape = LearnedOperandShape(x, p.axis(), p.num_axes());
    if (!shape.ok()) return Error(shape.status().message());
    blobs_.push_back(std::make_shared<Tensor>(*shape));
    FillerParameter filler = p.filler();
    if (!p.has_filler()) {
      filler.set_type("constant");
      filler.set_value(1.f);
    }
    const Status valid = ValidateFiller(filler);
    if (!valid.ok()) return Error(valid.message());
    DT_RETURN_IF_ERROR(Fill(filler, rng_, blobs_[0].get()));
  }

  bias_layer_.reset();
  if (p.bias_term()) {
    LayerParameter bias_param(param_);
    bias_param.set_type("Bias");
    bias_param.clear_loss_weight();
    BiasParameter* bp = bias_param.mutable_bias_param();
    bp->set_axis(p.axis());
    bp->set_num_axes(learned_scale ? p.num_axes() : bottom[1]->num_axes());
    *bp->mutable_filler() = p.bias_filler();
    bias_layer_ = std::make_unique<BiasLayer>(
        bias_param, LayerContext{phase_, rng_.Next(), engine_name(), scratch_});
    if (preloaded) bias_layer_->blobs().push_back(blobs_.back());
    DT_RETURN_IF_ERROR(bias_layer_->Setup({bottom[0]}, top));
    if (!preloaded) blobs_.push_back(bias_layer_->blobs()[0]);
  }
  return Status::Ok();
}

Status ScaleLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  StatusOr<BroadcastView> view =
      BroadcastOver(x, scale(bottom), param_.scale_param().axis(), "scale");
  if (!view.ok()) return Error(view.status().message());
  outer_ = view->outer;
  dim_ = view->dim;
  inner_ = view->inner;
  // In place, Forward saves x into bottom_copy_ (not allocated here, so that a Scale another layer
  // absorbs holds no copy).
  if (bottom[0] != top[0]) top[0]->ReshapeLike(x);
  if (bias_layer_) {
    // The net may have replaced our bias blob (shared parameters); hand the
    // current one down.
    bias_layer_->blobs()[0] = blobs_.back();
    DT_RETURN_IF_ERROR(bias_layer_->Reshape({top[0]}, top));
  }
  return Status::Ok();
}

Status ScaleLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (bottom[0] == top[0]) bottom_copy_.CopyFrom(*bottom[0]);
  const float* x = bottom[0]->data();
  const float* s = scale(bottom).data();
  float* y = top[0]->mutable_data();
  int64_t k = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t d = 0; d < dim_; ++d) {
      for (int64_t i = 0; i < inner_; ++i, ++k) y[k] = x[k] * s[d];
    }
  }
  if (bias_layer_) DT_RETURN_IF_ERROR(bias_layer_->Forward({top[0]}, top, nullptr));
  return Status::Ok();
}

void ScaleLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                              const TensorVec& bottom) {
  const bool learned_scale = bottom.size() == 1;
  if (bias_layer_ && param_propagate_down(static_cast<int>(blobs_.size()) - 1)) {
    bias_layer_->Backward(top, {false}, {top[0]});
  }
  const float* dy = top[0]->diff();
  if (learned_scale ? param_propagate_down(0) : propagate_down[1]) {
    const float* x = bottom[0] == top[0] ? bottom_copy_.data() : bottom[0]->data();
    float* ds = learned_scale ? blobs_[0]->mutable_diff() : bottom[1]->mutable_diff();
    if (!learned_scale) std::fill(ds, ds + dim_, 0.f);
    int64_t k = 0;
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t d = 0; d < dim_; ++d) {
        float sum = 0.f;
        for (int64_t i = 0; i < inner_; ++i, ++k) sum += dy[k] * x[k];
        ds[d] += sum;
      }
    }
  }
  if (propagate_down[0]) {
    const float* s = scale(bottom).data();
    float* dx = bottom[0]->mutable_diff();
    int64_t k = 0;
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t d = 0; d < dim_; ++d) {
        for (int64_t i = 0; i < inner_; ++i, ++k) dx[k] = dy[k] * s[d];
      }
    }
  }
}

}  // namespace dtrain
