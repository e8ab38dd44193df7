#include "layers/reduction_layer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ReductionLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const ReductionParameter& p = param_.reduction_param();
  const Tensor& x = *bottom[0];
  const int n = x.num_axes();
  if (p.axis() < -n || p.axis() >= n) {
    return Error("reduction_param.axis " + std::to_string(p.axis()) +
                 " is out of range for bottom of shape " + x.ShapeString());
  }
  const int axis = x.CanonicalAxisIndex(p.axis());
  num_ = x.count(0, axis);
  dim_ = x.count(axis);
  coeff_ = p.coeff();
  if (p.operation() == ReductionParameter::MEAN) coeff_ /= static_cast<float>(dim_);
  top[0]->Reshape(std::vector<int>(x.shape().begin(), x.shape().begin() + axis));
  return Status::Ok();
}

Status ReductionLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const ReductionParameter::ReductionOp op = param_.reduction_param().operation();
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  for (int64_t i = 0; i < num_; ++i, x += dim_) {
    double sum = 0;
    for (int64_t j = 0; j < dim_; ++j) {
      switch (op) {
        case ReductionParameter::SUM:
        case ReductionParameter::MEAN:
          sum += x[j];
          break;
        case ReductionParameter::ASUM:
          sum += std::fabs(x[j]);
          break;
        case ReductionParameter::SUMSQ:
          sum += static_cast<double>(x[j]) * x[j];
          break;
      }
    }
    y[i] = static_cast<float>(sum) * coeff_;
  }
  return Status::Ok();
}

void ReductionLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                  const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const ReductionParameter::ReductionOp op = param_.reduction_param().operation();
  const float* x = bottom[0]->data();
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  for (int64_t i = 0; i < num_; ++i, x += dim_, dx += dim_) {
    const float g = dy[i] * coeff_;
    for (int64_t j = 0; j < dim_; ++j) {
      switch (op) {
        case ReductionParameter::SUM:
        case ReductionParameter::MEAN:
          dx[j] = g;
          break;
        case ReductionParameter::ASUM:
          dx[j] = x[j] > 0 ? g : (x[j] < 0 ? -g : 0.f);
          break;
        case ReductionParameter::SUMSQ:
          dx[j] = 2 * g * x[j];
          break;
      }
    }
  }
}

}  // namespace dtrain
