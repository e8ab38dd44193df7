#include "layers/reshape_layer.h"

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ReshapeLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const BlobShape& shape = param_.reshape_param().shape();
  copy_axes_.clear();
  inferred_axis_ = -1;
  constant_count_ = 1;
  for (int i = 0; i < shape.dim_size(); ++i) {
    const int64_t d = shape.dim(i);
    if (d == 0) {
      copy_axes_.push_back(i);
    } else if (d == -1) {
      if (inferred_axis_ >= 0) return Error("shape may contain at most one -1");
      inferred_axis_ = i;
    } else if (d < -1) {
      return Error("shape dims must be >= -1, got " + std::to_string(d));
    } else {
      constant_count_ *= d;
    }
  }
  if (param_.reshape_param().num_axes() < -1) {
    return Error("num_axes must be >= 0, or -1 for all, got " +
                 std::to_string(param_.reshape_param().num_axes()));
  }
  return Status::Ok();
}

Status ReshapeLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const ReshapeParameter& p = param_.reshape_param();
  const Tensor& in = *bottom[0];
  const int in_axes = in.num_axes();
  const int start = p.axis() >= 0 ? p.axis() : in_axes + p.axis() + 1;
  if (start < 0 || start > in_axes) {
    return Error("axis " + std::to_string(p.axis()) + " is out of range for bottom " +
                 in.ShapeString());
  }
  const int end = p.num_axes() == -1 ? in_axes : start + p.num_axes();
  if (end > in_axes) {
    return Error("axis + num_axes = " + std::to_string(end) + " is out of range for bottom " +
                 in.ShapeString());
  }
  std::vector<int> shape(in.shape().begin(), in.shape().begin() + start);
  for (int64_t d : p.shape().dim()) shape.push_back(static_cast<int>(d));
  shape.insert(shape.end(), in.shape().begin() + end, in.shape().end());

  for (int i : copy_axes_) {
    if (start + i >= in_axes) {
      return Error("shape has a 0 at position " + std::to_string(i) + " but bottom " +
                   in.ShapeString() + " has no axis there to copy");
    }
    shape[start + i] = in.shape(start + i);
  }
  if (inferred_axis_ >= 0) {
    int64_t explicit_count = constant_count_ * in.count(0, start) * in.count(end);
    for (int i : copy_axes_) explicit_count *= shape[start + i];
    if (explicit_count == 0 || in.count() % explicit_count != 0) {
      return Error("cannot infer the -1 dim: bottom " + in.ShapeString() +
                   " is not divisible by the product of the other dims (" +
                   std::to_string(explicit_count) + ")");
    }
    shape[start + inferred_axis_] = static_cast<int>(in.count() / explicit_count);
  }
  int64_t count = 1;
  for (int d : shape) count *= d;
  if (count != in.count()) {
    return Error("top shape " + ShapeToString(shape) +
                 " does not have the element count of bottom " + in.ShapeString());
  }
  top[0]->Reshape(shape);
  top[0]->ShareData(in);
  top[0]->ShareDiff(in);
  return Status::Ok();
}

}  // namespace dtrain
