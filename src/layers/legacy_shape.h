// Caffe's legacy view of a blob's shape, which its older layers compare and index by: num,
// channels, height and width, the missing trailing axes read as 1. Caffe aborts on a blob of more
// than 4 axes there, so a layer reading this view refuses such bottoms first (the precondition
// here). Pure; thread-safe.
#pragma once

#include <array>

#include "core/tensor.h"

namespace dtrain {

// (num, channels, height, width) of a tensor of at most 4 axes.
inline std::array<int, 4> LegacyShape(const Tensor& t) {
  std::array<int, 4> dims = {1, 1, 1, 1};
  for (int k = 0; k < t.num_axes() && k < 4; ++k) dims[k] = t.shape(k);
  return dims;
}

}  // namespace dtrain
