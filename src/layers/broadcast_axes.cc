#include "layers/broadcast_axes.h"

#include <string>

namespace dtrain {

StatusOr<std::vector<int>> LearnedOperandShape(const Tensor& x, int axis_param, int num_axes) {
  if (axis_param < -x.num_axes() || axis_param >= x.num_axes()) {
    return InvalidArgument("axis " + std::to_string(axis_param) + " is out of range for bottom " +
                           x.ShapeString());
  }
  const int axis = x.CanonicalAxisIndex(axis_param);
  if (num_axes < -1 || (num_axes >= 0 && axis + num_axes > x.num_axes())) {
    return InvalidArgument("num_axes " + std::to_string(num_axes) + " from axis " +
                           std::to_string(axis) + " does not fit bottom " + x.ShapeString());
  }
  return std::vector<int>(x.shape().begin() + axis,
                          num_axes == -1 ? x.shape().end() : x.shape().begin() + axis + num_axes);
}

StatusOr<BroadcastView> BroadcastOver(const Tensor& x, const Tensor& operand, int axis_param,
                                      const char* name) {
  // A scalar operand lines up with any axis; 0 is as good as another.
  if (operand.num_axes() > 0 && (axis_param < -x.num_axes() || axis_param >= x.num_axes())) {
    return InvalidArgument("axis " + std::to_string(axis_param) + " is out of range for bottom " +
                           x.ShapeString());
  }
  const int axis = operand.num_axes() == 0 ? 0 : x.CanonicalAxisIndex(axis_param);
  bool fits = axis + operand.num_axes() <= x.num_axes();
  for (int i = 0; fits && i < operand.num_axes(); ++i) fits = x.shape(axis + i) == operand.shape(i);
  if (!fits) {
    return InvalidArgument(std::string(name) + " of shape " + operand.ShapeString() +
                           " does not match bottom " + x.ShapeString() + " from axis " +
                           std::to_string(axis));
  }
  BroadcastView view;
  view.outer = x.count(0, axis);
  view.dim = operand.count();
  view.inner = x.count(axis + operand.num_axes());
  return view;
}

}  // namespace dtrain
