#include "layers/axpy_layer.h"

#include <algorithm>

namespace dtrain {

Status AxpyLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0] || top[0] == bottom[1]) {
    return Error("may run in place only on its third bottom (y)");
  }
  const Tensor& a = *bottom[0];
  const Tensor& x = *bottom[1];
  const Tensor& y = *bottom[2];
  if (x.num_axes() < 2) {
    return Error("x (bottom 1) must have at least 2 axes (N, C, ...), got " + x.ShapeString());
  }
  bool scale_fits = a.num_axes() >= 2 && a.shape(0) == x.shape(0) && a.shape(1) == x.shape(1);
  for (int k = 2; scale_fits && k < a.num_axes(); ++k) scale_fits = a.shape(k) == 1;
  if (!scale_fits) {
    return Error("a (bottom 0) must be (N, C) or (N, C, 1, 1) for x (bottom 1) of shape " +
                 x.ShapeString() + ", got " + a.ShapeString());
  }
  if (y.shape() != x.shape()) {
    return Error("y (bottom 2) must have the shape of x (bottom 1), " + x.ShapeString() + ", got " +
                 y.ShapeString());
  }
  scales_ = x.count(0, 2);
  spatial_ = x.count(2);
  if (top[0] != bottom[2]) top[0]->ReshapeLike(x);
  return Status::Ok();
}

Status AxpyLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* a = bottom[0]->data();
  const float* x = bottom[1]->data();
  const float* y = bottom[2]->data();
  float* out = top[0]->mutable_data();
  for (int64_t k = 0; k < scales_; ++k) {
    for (int64_t i = k * spatial_; i < (k + 1) * spatial_; ++i) out[i] = a[k] * x[i] + y[i];
  }
  return Status::Ok();
}

void AxpyLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                             const TensorVec& bottom) {
  const float* dtop = top[0]->diff();
  if (propagate_down[0]) {
    const float* x = bottom[1]->data();
    float* da = bottom[0]->mutable_diff();
    for (int64_t k = 0; k < scales_; ++k) {
      double sum = 0;
      for (int64_t i = k * spatial_; i < (k + 1) * spatial_; ++i) {
        sum += static_cast<double>(dtop[i]) * x[i];
      }
      da[k] = static_cast<float>(sum);
    }
  }
  if (propagate_down[1]) {
    const float* a = bottom[0]->data();
    float* dx = bottom[1]->mutable_diff();
    for (int64_t k = 0; k < scales_; ++k) {
      for (int64_t i = k * spatial_; i < (k + 1) * spatial_; ++i) dx[i] = a[k] * dtop[i];
    }
  }
  // In place on y, its diff is the top's already.
  if (propagate_down[2] && top[0] != bottom[2]) {
    std::copy(dtop, dtop + top[0]->count(), bottom[2]->mutable_diff());
  }
}

}  // namespace dtrain
