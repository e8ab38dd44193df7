// Batch normalisation's per-channel arithmetic on one pixel of a channel block (channel_lanes.h),
// shared by dtrain's kernels that normalise on oneDNN's blocked layouts.
#pragma once

#include <cstddef>

#include "kernels/blocked/channel_lanes.h"

namespace dtrain::blocked {

// The forward's output, and what backward recomputes for the ReLU's mask: one expression, so
// that both passes round alike.
template <int B>
struct Coefficients {
  Vec<B> gain, center, shift;
  Coefficients(const float* gain_of, const float* center_of, const float* shift_of)
      : gain(Load<B>(gain_of)), center(Load<B>(center_of)), shift(Load<B>(shift_of)) {}
};
template <int B>
inline Vec<B> Normalized(Vec<B> x, const Coefficients<B>& k) {
  return k.gain * (x - k.center) + k.shift;
}

// A tensor at least this large is written with streaming stores: past both cores' L2.
constexpr size_t kStreamBytes = size_t{4} << 20;

}  // namespace dtrain::blocked
