// Comparing two nets that should compute the same thing (one fused or blocked, one plain and
// layer by layer): the agreement measure of the oracle harness, and a whole-net check of every
// layer's learnable parameters and their gradients.
#pragma once

#include "core/tensor.h"
#include "net/net.h"

namespace dtrain::testing {

// max |got - want| / max |want| over the data (or, with `diff`, the gradients); the plain
// difference when want is all zeros.
double RelativeError(const Tensor& got, const Tensor& want, bool diff);

// Every parameter blob of every layer of `got` agrees with `want`'s, data and gradient, within
// `tolerance` (the nets have the same layers in the same order).
void ExpectSameParameters(const Net& got, const Net& want, double tolerance);

}  // namespace dtrain::testing
