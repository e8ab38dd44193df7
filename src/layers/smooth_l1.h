// Fast R-CNN's smooth L1 function, and the bottoms rule of the two layers that use it,
// SmoothL1Loss (smooth_l1_loss_layer.h) and R-FCN's SmoothL1LossOHEM
// (smooth_l1_loss_ohem_layer.h):
//
//   f(d)  = 0.5 sigma^2 d^2  where |d| < 1 / sigma^2, else |d| - 0.5 / sigma^2
//   f'(d) = sigma^2 d        where |d| < 1 / sigma^2, else sign(d)
//
// with sigma2 = sigma^2; the bend and both pieces are computed in double and rounded to float, as
// Caffe's `1.0 / sigma2` and `0.5 * val * val` make them. Pure functions; thread-safe.
#pragma once

#include <cmath>
#include <string>

#include "core/tensor.h"
#include "layers/layer.h"

namespace dtrain {

inline float SmoothL1(float d, float sigma2) {
  const double magnitude = std::fabs(d);
  return magnitude < 1.0 / sigma2 ? static_cast<float>(0.5 * d * d * sigma2)
                                  : static_cast<float>(magnitude - 0.5 / sigma2);
}

inline float SmoothL1Slope(float d, float sigma2) {
  return std::fabs(d) < 1.0 / sigma2 ? sigma2 * d : static_cast<float>((d > 0) - (d < 0));
}

// What is wrong with the bottoms of a smooth L1 loss, or "": prediction, target and then weights
// (bbox_inside_weights, bbox_outside_weights), each of at most 4 axes and of the prediction's
// legacy shape, the prediction with a batch axis. The message names the bottom and both shapes.
std::string SmoothL1BottomsProblem(const TensorVec& bottom);

}  // namespace dtrain
