#include "layers/argmax_layer.h"

#include <algorithm>
#include <functional>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ArgMaxLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const ArgMaxParameter& p = param_.argmax_param();
  const Tensor& x = *bottom[0];
  const int n = x.num_axes();
  if (p.top_k() < 1) return Error("argmax_param.top_k must be at least 1");
  std::vector<int> shape;
  if (p.has_axis()) {
    if (p.axis() < -n || p.axis() >= n) {
      return Error("argmax_param.axis " + std::to_string(p.axis()) +
                   " is out of range for bottom of shape " + x.ShapeString());
    }
    axis_ = x.CanonicalAxisIndex(p.axis());
    dim_ = x.shape(axis_);
    stride_ = x.count(axis_ + 1);
    if (p.top_k() > dim_) {
      return Error("argmax_param.top_k " + std::to_string(p.top_k()) +
                   " exceeds the size of axis " + std::to_string(axis_) + " of bottom " +
                   x.ShapeString());
    }
    shape = x.shape();
    shape[axis_] = static_cast<int>(p.top_k());
  } else {
    if (n < 1) return Error("needs a bottom with at least 1 axis, got " + x.ShapeString());
    axis_ = -1;
    dim_ = x.count(1);
    stride_ = 1;
    if (p.top_k() > dim_) {
      return Error("argmax_param.top_k " + std::to_string(p.top_k()) +
                   " exceeds the values per item (" + std::to_string(dim_) + ") of bottom " +
                   x.ShapeString());
    }
    shape.assign(std::max(n, 3), 1);
    shape[0] = x.shape(0);
    shape[1] = p.out_max_val() ? 2 : 1;
    shape[2] = static_cast<int>(p.top_k());
  }
  top[0]->Reshape(shape);
  ranked_.resize(dim_);
  return Status::Ok();
}

Status ArgMaxLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const ArgMaxParameter& p = param_.argmax_param();
  const int top_k = static_cast<int>(p.top_k());
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  if (dim_ == 0) return Status::Ok();
  const int64_t positions = bottom[0]->count() / dim_;
  for (int64_t i = 0; i < positions; ++i) {
    // Position i is (outer o, inner s); its candidates lie stride_ apart.
    const int64_t o = i / stride_, s = i % stride_;
    const float* in = x + o * dim_ * stride_ + s;
    for (int64_t j = 0; j < dim_; ++j) ranked_[j] = {in[j * stride_], static_cast<int>(j)};
    std::partial_sort(ranked_.begin(), ranked_.begin() + top_k, ranked_.end(),
                      std::greater<std::pair<float, int>>());
    for (int k = 0; k < top_k; ++k) {
      const float index = static_cast<float>(ranked_[k].second);
      if (axis_ >= 0) {
        y[(o * top_k + k) * stride_ + s] = p.out_max_val() ? ranked_[k].first : index;
      } else if (p.out_max_val()) {
        y[2 * i * top_k + k] = index;
        y[2 * i * top_k + top_k + k] = ranked_[k].first;
      } else {
        y[i * top_k + k] = index;
      }
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
