// The smallest trainable solver, for tests of the training loop's bookkeeping (snapshots, their
// removal, timed requests) rather than of learning: an InnerProduct of 2 outputs on DummyData of
// 4 Gaussian rows of 3, label 1, fixed rate 0.1, seed 3, no display.
#pragma once

#include <string>

#include "proto/solver.pb.h"

namespace dtrain::testing {

// The solver with `fields` (solver prototxt text, e.g. "max_iter: 12 snapshot: 4") added; a
// gtest failure if it does not parse.
SolverParameter TinySolver(const std::string& fields);

// A one-weight net for update rules computed by hand: y = w * x with x = 2 and w = 1 at first,
// Euclidean loss against t = 1, so dL/dw = (w * x - t) * x.
inline constexpr char kOneWeightNet[] = R"(
  layer { name: "x" type: "DummyData" top: "x"
          dummy_data_param { shape { dim: 1 dim: 1 } data_filler { type: "constant" value: 2 } } }
  layer { name: "t" type: "DummyData" top: "t"
          dummy_data_param { shape { dim: 1 dim: 1 } data_filler { type: "constant" value: 1 } } }
  layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y"
          inner_product_param { num_output: 1 bias_term: false
                                weight_filler { type: "constant" value: 1 } } }
  layer { name: "loss" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "loss" }
)";

}  // namespace dtrain::testing
