#include "layers/prelu_layer.h"

#include <algorithm>

#include "core/filler.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status PReLULayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const PReLUParameter& p = param_.prelu_param();
  if (bottom[0]->num_axes() < 2) {
    return Error("bottom must have at least 2 axes (N, C, ...), got " + bottom[0]->ShapeString());
  }
  channel_shared_ = p.channel_shared();
  channels_ = bottom[0]->shape(1);
  const int64_t want = channel_shared_ ? 1 : channels_;
  if (blobs_.empty()) {
    blobs_.push_back(std::make_shared<Tensor>(channel_shared_ ? std::vector<int>{}
                                                              : std::vector<int>{channels_}));
    FillerParameter filler = p.filler();
    if (!p.has_filler()) {
      filler.set_type("constant");
      filler.set_value(0.25f);
    }
    const Status valid = ValidateFiller(filler);
    if (!valid.ok()) return Error(valid.message());
    DT_RETURN_IF_ERROR(Fill(filler, rng_, blobs_[0].get()));
  } else if (blobs_.size() != 1 || blobs_[0]->count() != want) {
    return Error("expected 1 slope blob of " + std::to_string(want) + " value(s), got " +
                 std::to_string(blobs_.size()) + " blob(s), the first " + blobs_[0]->ShapeString());
  }
  return Status::Ok();
}

Status PReLULayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (bottom[0]->num_axes() < 2 || bottom[0]->shape(1) != channels_) {
    return Error("bottom must keep " + std::to_string(channels_) + " channels, got " +
                 bottom[0]->ShapeString());
  }
  inner_ = bottom[0]->count(2);
  top[0]->ReshapeLike(*bottom[0]);
  if (bottom[0] == top[0]) bottom_copy_.ReshapeLike(*bottom[0]);
  return Status::Ok();
}

Status PReLULayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int64_t n = bottom[0]->count();
  if (bottom[0] == top[0]) bottom_copy_.CopyFrom(*bottom[0]);
  const float* x = bottom[0]->data();
  const float* a = blobs_[0]->data();
  float* y = top[0]->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::max(x[i], 0.f) + a[SlopeIndex(i)] * std::min(x[i], 0.f);
  }
  return Status::Ok();
}

void PReLULayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                              const TensorVec& bottom) {
  const int64_t n = top[0]->count();
  const float* x = bottom[0] == top[0] ? bottom_copy_.data() : bottom[0]->data();
  const float* dy = top[0]->diff();
  if (param_propagate_down(0)) {
    float* da = blobs_[0]->mutable_diff();
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] <= 0.f) da[SlopeIndex(i)] += dy[i] * x[i];
    }
  }
  if (propagate_down[0]) {
    const float* a = blobs_[0]->data();
    float* dx = bottom[0]->mutable_diff();
    for (int64_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : a[SlopeIndex(i)] * dy[i];
  }
}

}  // namespace dtrain
