#include "layers/accuracy_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status AccuracyLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const AccuracyParameter& p = param_.accuracy_param();
  const int n = bottom[0]->num_axes();
  if (p.axis() < -n || p.axis() >= n) {
    return Error("axis " + std::to_string(p.axis()) + " is out of range for scores " +
                 bottom[0]->ShapeString());
  }
  const int axis = bottom[0]->CanonicalAxisIndex(p.axis());
  outer_ = bottom[0]->count(0, axis);
  channels_ = bottom[0]->shape(axis);
  inner_ = bottom[0]->count(axis + 1);
  if (outer_ * inner_ != bottom[1]->count()) {
    return Error("needs one label per prediction: scores " + bottom[0]->ShapeString() +
                 " with axis " + std::to_string(axis) + " need " + std::to_string(outer_ * inner_) +
                 " labels, got " + bottom[1]->ShapeString());
  }
  if (p.top_k() < 1 || static_cast<int64_t>(p.top_k()) > channels_) {
    return Error("top_k must be in [1, " + std::to_string(channels_) +
                 "] (the number of classes), got " + std::to_string(p.top_k()));
  }
  top[0]->Reshape({});
  if (top.size() > 1) top[1]->Reshape({channels_});
  seen_.resize(channels_);
  return Status::Ok();
}

Status AccuracyLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const AccuracyParameter& p = param_.accuracy_param();
  const int top_k = static_cast<int>(p.top_k());
  const float* score = bottom[0]->data();
  const float* label = bottom[1]->data();
  float* per_class = top.size() > 1 ? top[1]->mutable_data() : nullptr;
  if (per_class) std::fill(per_class, per_class + channels_, 0.f);
  std::fill(seen_.begin(), seen_.end(), 0);
  int64_t correct = 0, count = 0;
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t i = 0; i < inner_; ++i) {
      const int l = static_cast<int>(label[o * inner_ + i]);
      if (p.has_ignore_label() && l == p.ignore_label()) continue;
      if (l < 0 || l >= channels_) {
        return Error("label " + std::to_string(l) + " at position " +
                     std::to_string(o * inner_ + i) + " is outside [0, " +
                     std::to_string(channels_) + ")");
      }
      ++seen_[l];
      ++count;
      const float truth = score[(o * channels_ + l) * inner_ + i];
      int better = -1;  // the true class counts itself once
      for (int c = 0; c < channels_ && better < top_k; ++c) {
        if (score[(o * channels_ + c) * inner_ + i] >= truth) ++better;
      }
      if (better < top_k) {
        ++correct;
        if (per_class) ++per_class[l];
      }
    }
  }
  top[0]->mutable_data()[0] = count == 0 ? 0.f : static_cast<float>(correct) / count;
  if (per_class) {
    for (int c = 0; c < channels_; ++c) {
      per_class[c] = seen_[c] == 0 ? 0.f : per_class[c] / static_cast<float>(seen_[c]);
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
