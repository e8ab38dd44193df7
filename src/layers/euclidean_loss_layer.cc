#include "layers/euclidean_loss_layer.h"

namespace dtrain {

Status EuclideanLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& a = *bottom[0];
  const Tensor& b = *bottom[1];
  if (a.num_axes() == 0 || b.num_axes() == 0 || a.shape(0) != b.shape(0) ||
      a.count(1) != b.count(1)) {
    return Error("bottoms must have the same first dimension and count per item: " +
                 a.ShapeString() + " vs " + b.ShapeString());
  }
  difference_.ReshapeLike(a);
  top[0]->Reshape({});
  return Status::Ok();
}

Status EuclideanLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* a = bottom[0]->data();
  const float* b = bottom[1]->data();
  float* d = difference_.mutable_data();
  double sum = 0;
  for (int64_t i = 0; i < difference_.count(); ++i) {
    d[i] = a[i] - b[i];
    sum += static_cast<double>(d[i]) * d[i];
  }
  const int num = bottom[0]->shape(0);
  top[0]->mutable_data()[0] = num == 0 ? 0.f : static_cast<float>(sum / num / 2);
  return Status::Ok();
}

void EuclideanLossLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                      const TensorVec& bottom) {
  const int num = bottom[0]->shape(0);
  if (num == 0) return;
  const float* d = difference_.data();
  for (int k = 0; k < 2; ++k) {
    if (!propagate_down[k]) continue;
    const float alpha = (k == 0 ? 1.f : -1.f) * top[0]->diff()[0] / num;
    float* dx = bottom[k]->mutable_diff();
    for (int64_t i = 0; i < difference_.count(); ++i) dx[i] = alpha * d[i];
  }
}

}  // namespace dtrain
