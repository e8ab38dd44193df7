// The order in which hard-example mining ranks losses: a strict total order on (loss, index)
// pairs, so that sorting by it is deterministic even with NaN losses and equal ones. NaN ranks
// first (a NaN loss is kept in the batch, where the loss comes out NaN and the divergence check
// names the layer that made it), then higher losses, then lower indices. Shared by SSD's mining
// (mining.h) and R-FCN's (hard_rois.h). Pure; thread-safe.
#pragma once

#include <cmath>

namespace dtrain::detection {

// Whether (loss a, index i) ranks before (loss b, index j).
inline bool RanksBefore(float a, int i, float b, int j) {
  const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
  if (a_nan != b_nan) return a_nan;
  if (!a_nan && a != b) return a > b;
  return i < j;
}

}  // namespace dtrain::detection
