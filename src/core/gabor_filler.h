// Intel Caffe's "gabor" filler: fixed, not random, Gabor filters for a first convolution over an
// RGB image, from a table of parameters for four topologies only (filters x kernel size):
// 32 x 5x5 (CIFAR-like), 64 x 7x7 (GoogLeNet-like), 64 x 3x3 (VGG-like), 96 x 11x11
// (AlexNet-like). Filter k at kernel point (x, y) in [-1, 1]^2 is
//   lambda * exp(-(x^2 + y^2) / (2 sigma^2)) * cos(omega * (x cos theta - y sin theta) + phi)
// times r, g or b for channels 0, 1, 2, with (lambda, sigma, omega, phi, theta, r, g, b) from the
// topology's table (Intel's include/caffe/gabor.hpp). Stateless.
#pragma once

#include "core/status.h"
#include "core/tensor.h"

namespace dtrain {

// Fills `weights` (filters x 3 x k x k) with the topology's Gabor filters; an error naming the
// four shapes that have them for any other shape.
Status FillGabor(Tensor* weights);

}  // namespace dtrain
