#include "detection/region_box.h"

#include <algorithm>
#include <cmath>

namespace dtrain::detection {

float RegionSigmoid(float x) { return static_cast<float>(1.0 / (1.0 + std::exp(-double{x}))); }

void RegionSoftmax(float* values, int count) {
  if (count <= 0) return;
  const float largest = *std::max_element(values, values + count);
  float sum = 0;
  for (int k = 0; k < count; ++k) {
    values[k] = std::exp(values[k] - largest);
    sum += values[k];
  }
  for (int k = 0; k < count; ++k) values[k] /= sum;
}

namespace {

// The overlap of [c1 - w1 / 2, c1 + w1 / 2] and [c2 - w2 / 2, c2 + w2 / 2] (negative if apart).
float Overlap(float c1, float w1, float c2, float w2) {
  const float left = std::max(c1 - w1 / 2, c2 - w2 / 2);
  const float right = std::min(c1 + w1 / 2, c2 + w2 / 2);
  return right - left;
}

}  // namespace

float RegionIou(const CenterBox& a, const CenterBox& b) {
  const float w = Overlap(a.x, a.w, b.x, b.w);
  const float h = Overlap(a.y, a.h, b.y, b.h);
  if (w < 0 || h < 0) return 0;
  const float intersection = w * h;
  return intersection / (a.w * a.h + b.w * b.h - intersection);
}

CenterBox RegionPredictedBox(const float* p, float anchor_w, float anchor_h, int i, int j,
                             int side) {
  const float s = static_cast<float>(side);
  return {(static_cast<float>(i) + RegionSigmoid(p[0])) / s,
          (static_cast<float>(j) + RegionSigmoid(p[1])) / s, std::exp(p[2]) * anchor_w / s,
          std::exp(p[3]) * anchor_h / s};
}

}  // namespace dtrain::detection
