#include "layers/eltwise_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"

namespace dtrain {

Status EltwiseLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const EltwiseParameter& p = param_.eltwise_param();
  op_ = p.operation();
  if (p.coeff_size() != 0 && p.coeff_size() != static_cast<int>(bottom.size())) {
    return Error("needs one coeff per bottom (" + std::to_string(bottom.size()) + "), got " +
                 std::to_string(p.coeff_size()));
  }
  if (p.coeff_size() != 0 && op_ != EltwiseParameter::SUM) {
    return Error("coeff is only allowed with operation SUM");
  }
  coeffs_.assign(bottom.size(), 1.f);
  for (int i = 0; i < p.coeff_size(); ++i) coeffs_[i] = p.coeff(i);
  return Status::Ok();
}

Status EltwiseLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (size_t i = 1; i < bottom.size(); ++i) {
    if (bottom[i]->shape() != bottom[0]->shape()) {
      return Error("all bottoms must have the same shape: bottom[0] is " +
                   bottom[0]->ShapeString() + ", bottom[" + std::to_string(i) + "] is " +
                   bottom[i]->ShapeString());
    }
  }
  top[0]->ReshapeLike(*bottom[0]);
  // Implementation list: oneDNN (SUM only), then the loops below. The problem is updated in place
  // so that a steady-state Reshape allocates nothing.
  problem_.count = bottom[0]->count();
  problem_.coeffs = coeffs_;
  StatusOr<bool> changed = kernel_.Update(
      engine_, problem_,
      [&]() -> StatusOr<std::unique_ptr<onednn::EltwiseSum>> {
        if (op_ != EltwiseParameter::SUM) return Unsupported("only SUM has a oneDNN kernel");
        return onednn::EltwiseSum::Create(problem_, /*training=*/true);
      },
      &engine_report_);
  if (!changed.ok()) return Error(changed.status().message());
  if (op_ == EltwiseParameter::MAX) max_index_.resize(bottom[0]->count());
  return Status::Ok();
}

Status EltwiseLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (onednn::EltwiseSum* fast = kernel_.fast()) {
    sources_.resize(bottom.size());
    for (size_t i = 0; i < bottom.size(); ++i) sources_[i] = bottom[i]->data();
    fast->Forward(sources_, top[0]->mutable_data());
    return Status::Ok();
  }
  const int64_t n = top[0]->count();
  float* y = top[0]->mutable_data();
  switch (op_) {
    case EltwiseParameter::PROD: {
      const float* a = bottom[0]->data();
      const float* b = bottom[1]->data();
      for (int64_t j = 0; j < n; ++j) y[j] = a[j] * b[j];
      for (size_t i = 2; i < bottom.size(); ++i) {
        const float* x = bottom[i]->data();
        for (int64_t j = 0; j < n; ++j) y[j] *= x[j];
      }
      break;
    }
    case EltwiseParameter::SUM: {
      std::fill(y, y + n, 0.f);
      for (size_t i = 0; i < bottom.size(); ++i) {
        const float* x = bottom[i]->data();
        for (int64_t j = 0; j < n; ++j) y[j] += coeffs_[i] * x[j];
      }
      break;
    }
    case EltwiseParameter::MAX: {
      const float* a = bottom[0]->data();
      const float* b = bottom[1]->data();
      for (int64_t j = 0; j < n; ++j) {
        const bool first = a[j] > b[j];
        y[j] = first ? a[j] : b[j];
        max_index_[j] = first ? 0 : 1;
      }
      for (size_t i = 2; i < bottom.size(); ++i) {
        const float* x = bottom[i]->data();
        for (int64_t j = 0; j < n; ++j) {
          if (x[j] > y[j]) {
            y[j] = x[j];
            max_index_[j] = static_cast<int>(i);
          }
        }
      }
      break;
    }
    default:
      return Error("unknown operation " + std::to_string(op_));
  }
  return Status::Ok();
}

void EltwiseLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  if (onednn::EltwiseSum* fast = kernel_.fast()) {
    for (size_t i = 0; i < bottom.size(); ++i) {
      if (propagate_down[i]) {
        fast->Backward(static_cast<int>(i), top[0]->diff(), bottom[i]->mutable_diff());
      }
    }
    return;
  }
  const int64_t n = top[0]->count();
  const float* y = top[0]->data();
  const float* dy = top[0]->diff();
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (!propagate_down[i]) continue;
    const float* x = bottom[i]->data();
    float* dx = bottom[i]->mutable_diff();
    switch (op_) {
      case EltwiseParameter::PROD:
        if (param_.eltwise_param().stable_prod_grad()) {
          std::fill(dx, dx + n, 1.f);
          for (size_t k = 0; k < bottom.size(); ++k) {
            if (k == i) continue;
            const float* other = bottom[k]->data();
            for (int64_t j = 0; j < n; ++j) dx[j] *= other[j];
          }
        } else {
          for (int64_t j = 0; j < n; ++j) dx[j] = y[j] / x[j];
        }
        for (int64_t j = 0; j < n; ++j) dx[j] *= dy[j];
        break;
      case EltwiseParameter::SUM:
        for (int64_t j = 0; j < n; ++j) dx[j] = coeffs_[i] * dy[j];
        break;
      case EltwiseParameter::MAX:
        for (int64_t j = 0; j < n; ++j) {
          dx[j] = max_index_[j] == static_cast<int>(i) ? dy[j] : 0.f;
        }
        break;
    }
  }
}

}  // namespace dtrain
