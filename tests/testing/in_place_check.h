// ExpectInPlaceMatchesOutOfPlace: the check that an element-wise layer run in place (top ==
// bottom) computes the same top data and bottom diff as the same layer run out of place, on the
// given input and a random top diff (seeded). Both layers are built from `prototxt` through
// MakeLayer; differences are gtest failures in the calling test. Not thread-safe.
#pragma once

#include <string>

#include "core/tensor.h"

namespace dtrain::testing {

void ExpectInPlaceMatchesOutOfPlace(const std::string& prototxt, const Tensor& input,
                                    bool check_backward = true);

}  // namespace dtrain::testing
