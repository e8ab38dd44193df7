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

}  // namespace dtrain::testing
