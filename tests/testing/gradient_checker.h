// The shared finite-difference checker for every layer's Backward.
//
// The objective is L = sum_k sum_j w_kj * top_k[j] with fixed random weights w, so one Backward
// (top diff = w) gives dL/dx for every input x, which is compared with the central difference
// (L(x+h) - L(x-h)) / 2h, for every element of every checked bottom and learnable parameter.
// An element passes when |analytic - numeric| <= threshold * max(|analytic|, |numeric|, 1).
// Elements whose input lies within kink_range of kink (e.g. ReLU at 0) are skipped, as in Caffe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "layers/layer.h"

namespace dtrain::testing {

struct GradientCheckOptions {
  float step = 1e-2f;
  float threshold = 1e-3f;
  float kink = 0.f;
  float kink_range = -1.f;  // < 0: no kink
  uint64_t seed = 1701;
  bool check_params = true;
  // Bottoms to check; empty means every bottom.
  std::vector<int> bottoms;
  // Tops in the objective (the others get weight 0, so a zero diff); empty means every top. For
  // a layer whose extra tops carry no gradient (the OHEM losses' per-ROI loss).
  std::vector<int> tops;
};

// Runs Setup itself, then checks. Adds gtest failures naming the tensor and element.
void CheckGradients(Layer& layer, const TensorVec& bottom, const TensorVec& top,
                    const GradientCheckOptions& options = {});

// Fills data with N(mean, stddev) from a seed.
void FillGaussian(Tensor* tensor, uint64_t seed, float stddev = 1.f, float mean = 0.f);
// Fills data with U(lo, hi) from a seed.
void FillUniform(Tensor* tensor, uint64_t seed, float lo, float hi);

}  // namespace dtrain::testing
