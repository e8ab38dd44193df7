#include "layers/flatten_layer.h"

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status FlattenLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const FlattenParameter& p = param_.flatten_param();
  const int n = bottom[0]->num_axes();
  auto valid = [n](int axis) { return axis >= -n && axis < n; };
  if (!valid(p.axis()) || !valid(p.end_axis())) {
    return Error("axis " + std::to_string(p.axis()) + " / end_axis " +
                 std::to_string(p.end_axis()) + " out of range for bottom " +
                 bottom[0]->ShapeString());
  }
  const int start = bottom[0]->CanonicalAxisIndex(p.axis());
  const int end = bottom[0]->CanonicalAxisIndex(p.end_axis());
  if (start > end) {
    return Error("axis " + std::to_string(p.axis()) + " comes after end_axis " +
                 std::to_string(p.end_axis()) + " for bottom " + bottom[0]->ShapeString());
  }
  std::vector<int> shape(bottom[0]->shape().begin(), bottom[0]->shape().begin() + start);
  shape.push_back(static_cast<int>(bottom[0]->count(start, end + 1)));
  shape.insert(shape.end(), bottom[0]->shape().begin() + end + 1, bottom[0]->shape().end());
  top[0]->Reshape(shape);
  top[0]->ShareData(*bottom[0]);
  top[0]->ShareDiff(*bottom[0]);
  return Status::Ok();
}

}  // namespace dtrain
