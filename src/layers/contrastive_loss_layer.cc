#include "layers/contrastive_loss_layer.h"

#include <algorithm>
#include <cmath>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ContrastiveLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& a = *bottom[0];
  const Tensor& b = *bottom[1];
  const Tensor& y = *bottom[2];
  if (a.num_axes() == 0 || b.num_axes() == 0 || a.shape(0) != b.shape(0) ||
      a.count(1) != b.count(1)) {
    return Error("feature bottoms a and b must have the same first dimension and count per item: " +
                 a.ShapeString() + " vs " + b.ShapeString());
  }
  if (y.count() != a.shape(0)) {
    return Error("needs one pair label per item: features " + a.ShapeString() + " need " +
                 std::to_string(a.shape(0)) + " labels, got " + y.ShapeString());
  }
  const int num = a.shape(0);
  difference_.Reshape({num, static_cast<int>(a.count(1))});
  dist_sq_.Reshape({num});
  top[0]->Reshape({});
  return Status::Ok();
}

Status ContrastiveLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const ContrastiveLossParameter& p = param_.contrastive_loss_param();
  const double margin = p.margin();
  const int num = bottom[0]->shape(0);
  const int64_t channels = bottom[0]->count(1);
  const float* a = bottom[0]->data();
  const float* b = bottom[1]->data();
  const float* y = bottom[2]->data();
  float* d = difference_.mutable_data();
  float* dist_sq = dist_sq_.mutable_data();
  double loss = 0;
  for (int i = 0; i < num; ++i) {
    double sq = 0;
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t k = i * channels + c;
      d[k] = a[k] - b[k];
      sq += static_cast<double>(d[k]) * d[k];
    }
    dist_sq[i] = static_cast<float>(sq);
    if (static_cast<int>(y[i]) != 0) {
      loss += dist_sq[i];
    } else if (p.legacy_version()) {
      loss += std::max(margin - dist_sq[i], 0.0);
    } else {
      const double gap = std::max(margin - std::sqrt(static_cast<double>(dist_sq[i])), 0.0);
      loss += gap * gap;
    }
  }
  top[0]->mutable_data()[0] = num == 0 ? 0.f : static_cast<float>(loss / num / 2);
  return Status::Ok();
}

void ContrastiveLossLayer::BackwardImpl(const TensorVec& top,
                                        const std::vector<bool>& propagate_down,
                                        const TensorVec& bottom) {
  // The pair labels get no gradient (AllowForceBackward(2) is false); propagate_down[2] is
  // ignored.
  const ContrastiveLossParameter& p = param_.contrastive_loss_param();
  const float margin = p.margin();
  const int num = bottom[0]->shape(0);
  if (num == 0) return;
  const int64_t channels = bottom[0]->count(1);
  const float* d = difference_.data();
  const float* dist_sq = dist_sq_.data();
  const float* y = bottom[2]->data();
  for (int k = 0; k < 2; ++k) {
    if (!propagate_down[k]) continue;
    const float alpha = (k == 0 ? 1.f : -1.f) * top[0]->diff()[0] / num;
    float* dx = bottom[k]->mutable_diff();
    for (int i = 0; i < num; ++i) {
      float scale = alpha;  // similar pair
      if (static_cast<int>(y[i]) == 0) {
        if (p.legacy_version()) {
          scale = margin - dist_sq[i] > 0.f ? -alpha : 0.f;
        } else {
          const float dist = std::sqrt(dist_sq[i]);
          const float gap = margin - dist;
          scale = gap > 0.f ? -alpha * gap / (dist + 1e-4f) : 0.f;
        }
      }
      for (int64_t c = 0; c < channels; ++c) dx[i * channels + c] = scale * d[i * channels + c];
    }
  }
}

}  // namespace dtrain
