// Comparisons of trained weights: two .caffemodel files (the same net) as one number, and a
// model's size, for tests that check that two ways of training give the same model. Failures to
// read a file are gtest failures.
#pragma once

#include <string>

namespace dtrain::testing {

// max |a - b| / max |b| over every parameter of two .caffemodel files of the same net.
double RelativeWeightDifference(const std::string& a_path, const std::string& b_path);

// The bytes of a .caffemodel's parameters as float32: what one allreduce of the gradients moves.
long long ParameterBytes(const std::string& path);

}  // namespace dtrain::testing
