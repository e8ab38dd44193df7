#include "layers/multinomial_logistic_loss_layer.h"

#include <algorithm>
#include <cmath>

namespace dtrain {

Status MultinomialLogisticLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& p = *bottom[0];
  const Tensor& labels = *bottom[1];
  if (p.num_axes() == 0 || labels.num_axes() == 0 || p.shape(0) != labels.shape(0) ||
      labels.count() != p.shape(0)) {
    return Error("needs one label per item: probabilities " + p.ShapeString() + ", labels " +
                 labels.ShapeString());
  }
  top[0]->Reshape({});
  return Status::Ok();
}

Status MultinomialLogisticLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int num = bottom[0]->shape(0);
  const int64_t dim = bottom[0]->count(1);
  const float* p = bottom[0]->data();
  const float* label = bottom[1]->data();
  double loss = 0;
  for (int i = 0; i < num; ++i) {
    const int l = static_cast<int>(label[i]);
    if (l < 0 || l >= dim) {
      return Error("label " + std::to_string(l) + " at position " + std::to_string(i) +
                   " is outside [0, " + std::to_string(dim) + ")");
    }
    loss -= std::log(std::max(p[i * dim + l], kLogThreshold));
  }
  top[0]->mutable_data()[0] = num == 0 ? 0.f : static_cast<float>(loss / num);
  return Status::Ok();
}

void MultinomialLogisticLossLayer::BackwardImpl(const TensorVec& top,
                                                const std::vector<bool>& propagate_down,
                                                const TensorVec& bottom) {
  // Labels get no gradient (AllowForceBackward(1) is false); propagate_down[1] is ignored.
  if (!propagate_down[0]) return;
  const int num = bottom[0]->shape(0);
  if (num == 0) return;
  const int64_t dim = bottom[0]->count(1);
  const float* p = bottom[0]->data();
  const float* label = bottom[1]->data();
  float* dp = bottom[0]->mutable_diff();
  std::fill(dp, dp + bottom[0]->count(), 0.f);
  const float scale = -top[0]->diff()[0] / num;
  for (int i = 0; i < num; ++i) {
    const int64_t k = i * dim + static_cast<int>(label[i]);
    dp[k] = scale / std::max(p[k], kLogThreshold);
  }
}

}  // namespace dtrain
