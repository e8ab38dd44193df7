#include "layers/hinge_loss_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status HingeLossLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  const Tensor& labels = *bottom[1];
  if (x.num_axes() == 0 || labels.num_axes() == 0 || x.shape(0) != labels.shape(0) ||
      labels.count() != x.shape(0)) {
    return Error("needs one label per item: scores " + x.ShapeString() + ", labels " +
                 labels.ShapeString());
  }
  margins_.ReshapeLike(x);
  top[0]->Reshape({});
  return Status::Ok();
}

Status HingeLossLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const int num = bottom[0]->shape(0);
  const int64_t dim = bottom[0]->count(1);
  const float* x = bottom[0]->data();
  const float* label = bottom[1]->data();
  float* e = margins_.mutable_data();
  for (int i = 0; i < num; ++i) {
    const int l = static_cast<int>(label[i]);
    if (l < 0 || l >= dim) {
      return Error("label " + std::to_string(l) + " at position " + std::to_string(i) +
                   " is outside [0, " + std::to_string(dim) + ")");
    }
    for (int64_t j = 0; j < dim; ++j) {
      const float t = j == l ? 1.f : -1.f;
      e[i * dim + j] = std::max(0.f, 1.f - t * x[i * dim + j]);
    }
  }
  const bool l2 = param_.hinge_loss_param().norm() == HingeLossParameter::L2;
  double sum = 0;
  for (int64_t k = 0; k < margins_.count(); ++k) {
    sum += l2 ? static_cast<double>(e[k]) * e[k] : e[k];
  }
  top[0]->mutable_data()[0] = num == 0 ? 0.f : static_cast<float>(sum / num);
  return Status::Ok();
}

void HingeLossLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                  const TensorVec& bottom) {
  // Labels get no gradient (AllowForceBackward(1) is false); propagate_down[1] is ignored.
  if (!propagate_down[0]) return;
  const int num = bottom[0]->shape(0);
  if (num == 0) return;
  const int64_t dim = bottom[0]->count(1);
  const float* label = bottom[1]->data();
  const float* e = margins_.data();
  float* dx = bottom[0]->mutable_diff();
  const bool l2 = param_.hinge_loss_param().norm() == HingeLossParameter::L2;
  const float scale = top[0]->diff()[0] / num;
  for (int i = 0; i < num; ++i) {
    const int l = static_cast<int>(label[i]);
    for (int64_t j = 0; j < dim; ++j) {
      const float minus_t = j == l ? -1.f : 1.f;
      const float ek = e[i * dim + j];
      const float g = l2 ? 2.f * ek : (ek > 0.f ? 1.f : 0.f);
      dx[i * dim + j] = minus_t * g * scale;
    }
  }
}

}  // namespace dtrain
