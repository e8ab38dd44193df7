// The broadcasting rule that the Bias and Scale layers share (Caffe's): an operand b lines up
// with the bottom x from an axis on, b's shape equal to x's dims there; a scalar b (0 axes) lines
// up anywhere. x is then viewed as outer x b.count() x inner, row-major, and b's value d applies
// to every element in slice d.
//
// Pure functions of the shapes. Errors come back as InvalidArgument without the layer's name;
// the calling layer adds it (Layer::Error). Thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace dtrain {

struct BroadcastView {
  int64_t outer = 1;  // x's dims before the operand's axes
  int64_t dim = 1;    // the operand's element count
  int64_t inner = 1;  // x's dims after the operand's axes
};

// The shape of a learned operand: `num_axes` of x's dims from `axis` (which may be negative),
// or all of them from `axis` when num_axes is -1.
StatusOr<std::vector<int>> LearnedOperandShape(const Tensor& x, int axis, int num_axes);

// How `operand` (called `name` in errors, e.g. "bias") lines up with x from `axis` (which may be
// negative; ignored for a scalar operand).
StatusOr<BroadcastView> BroadcastOver(const Tensor& x, const Tensor& operand, int axis,
                                      const char* name);

}  // namespace dtrain
