// The bottoms DetectionOutput's tests share: two priors, P0 (0.1, 0.1)-(0.3, 0.3) and P1 (0.5,
// 0.5)- (0.9, 0.9), variances 0.1; CORNER codes, so a box is prior + 0.1 x offset. P1's offsets (1,
// 0, 0, 0) move its xmin to 0.6. Three classes (0 is the background): P0 scores (0.1, 0.7, 0.2), P1
// (0.2, 0.3, 0.5).
#pragma once

#include <vector>

#include "core/tensor.h"
#include "testing/layer_test_util.h"

namespace dtrain::testing {

struct DetectionOutputInputs {
  Tensor loc{std::vector<int>{1, 8}};
  Tensor conf{std::vector<int>{1, 6}};
  Tensor priors{std::vector<int>{1, 2, 8}};
  Tensor top;
  DetectionOutputInputs() {
    FillValues(&loc, {0, 0, 0, 0, 1, 0, 0, 0});
    FillValues(&conf, {0.1f, 0.7f, 0.2f, 0.2f, 0.3f, 0.5f});
    FillValues(&priors, {0.1f, 0.1f, 0.3f, 0.3f, 0.5f, 0.5f, 0.9f, 0.9f,  //
                         0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f});
  }
  TensorVec bottoms() { return {&loc, &conf, &priors}; }
  TensorVec tops() { return {&top}; }
};

}  // namespace dtrain::testing
