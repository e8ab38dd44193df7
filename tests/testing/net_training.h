// Plain SGD on a whole Net for the net-level layer tests: no solver, no momentum, so a test
// shows only that its layers' gradients lower the loss. Failures are gtest failures.
#pragma once

#include <utility>

#include "net/net.h"

namespace dtrain::testing {

// `iterations` steps of w -= lr * dL/dw over every learnable parameter; returns the first and
// the last loss. A failed or non-finite forward is a test failure (and ends the loop).
std::pair<float, float> TrainWithPlainSgd(Net& net, int iterations, float lr);

}  // namespace dtrain::testing
