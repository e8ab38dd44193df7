#include "layers/mvn_layer.h"

#include <cmath>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status MVNLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& x = *bottom[0];
  if (x.num_axes() > 4) {
    return Error("needs a bottom of at most 4 axes (N x C x H x W, as in Caffe), got " +
                 x.ShapeString());
  }
  std::vector<int> shape(4, 1);
  for (int i = 0; i < x.num_axes(); ++i) shape[i] = x.shape(i);
  const bool across = param_.mvn_param().across_channels();
  groups_ = across ? shape[0] : static_cast<int64_t>(shape[0]) * shape[1];
  group_size_ = x.count() / (groups_ > 0 ? groups_ : 1);
  top[0]->Reshape(shape);  // in place too: the same values, now with 4 axes, as in Caffe
  divisor_.assign(groups_, 1.f);
  return Status::Ok();
}

Status MVNLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const MVNParameter& p = param_.mvn_param();
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  const int64_t d = group_size_;
  for (int64_t g = 0; g < groups_; ++g, x += d, y += d) {
    double sum = 0;
    for (int64_t j = 0; j < d; ++j) sum += x[j];
    const float mean = static_cast<float>(sum / d);
    double squares = 0;
    for (int64_t j = 0; j < d; ++j) {
      y[j] = x[j] - mean;
      squares += static_cast<double>(y[j]) * y[j];
    }
    if (!p.normalize_variance()) continue;
    divisor_[g] = static_cast<float>(std::sqrt(squares / d)) + p.eps();
    for (int64_t j = 0; j < d; ++j) y[j] /= divisor_[g];
  }
  return Status::Ok();
}

void MVNLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                            const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const bool normalize = param_.mvn_param().normalize_variance();
  const float* y = top[0]->data();
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  const int64_t d = group_size_;
  // Group sums first, then element-wise writes: dx may be dy (in place).
  for (int64_t g = 0; g < groups_; ++g, y += d, dy += d, dx += d) {
    double sum_dy = 0, sum_y_dy = 0;
    for (int64_t j = 0; j < d; ++j) {
      sum_dy += dy[j];
      sum_y_dy += static_cast<double>(y[j]) * dy[j];
    }
    const float mean_dy = static_cast<float>(sum_dy / d);
    if (!normalize) {
      for (int64_t j = 0; j < d; ++j) dx[j] = dy[j] - mean_dy;
      continue;
    }
    const float mean_y_dy = static_cast<float>(sum_y_dy / d);
    for (int64_t j = 0; j < d; ++j) dx[j] = (dy[j] - mean_dy - y[j] * mean_y_dy) / divisor_[g];
  }
}

}  // namespace dtrain
