#include "core/gabor_filler.h"

#include <cmath>
#include <string>

namespace dtrain {
namespace {

constexpr double kPi = 3.14159265358979323846;

// One filter's parameters; the defaults hold where a topology's table leaves one unset.
struct Gabor {
  double lambda = 1, sigma = 0.6, omega = kPi, phi = 0, theta = 0;
  double r = 1, g = 1, b = 1;
  void Colors(double red, double green, double blue) {
    r = red;
    g = green;
    b = blue;
  }
};

// In each table `span` is pi * (kernel size - 1) / 2: a frequency of span / d has d half-periods
// less than the widest over the kernel.
Gabor CifarLike(int k, double span) {
  Gabor f;
  f.lambda = 0.5;
  if (k < 8) {
    f.omega = span;
    f.theta = (k % 8) * kPi / 8;
  } else if (k < 14) {
    f.omega = span / 2;
    f.theta = ((k - 2) % 6) * kPi / 6 + kPi / 12;
  } else if (k < 16) {
    f.sigma = 0.75;
    f.omega = span / 8;
    f.phi = (k % 2) * kPi;
    f.Colors(1, -1, 1);
  } else {
    f.omega = span / 4;
    f.theta = (k % 4) * kPi / 2 + kPi / 4 + kPi / 8;
    f.phi = kPi / 2;
  }
  // The last sixteen filters take colour-opponent weights, in groups.
  if (k >= 30) {
    f.theta = (k % 2) * kPi / 2 + kPi / 4 + kPi / 8;
    f.Colors(1, 1, 0);
  } else if (k >= 28) {
    f.theta = (k % 2) * kPi / 2 + kPi / 4 - kPi / 8;
    f.Colors(-1, 1, -1);
  } else if (k >= 24) {
    f.Colors(-1, 1, 1);
  } else if (k >= 20) {
    f.Colors(1, 0, -1);
  }
  return f;
}

Gabor GoogLeNetLike(int k, double span) {
  Gabor f;
  if (k < 32) {
    const int frequency = k % 8;
    f.lambda = 1 / (1 + frequency / 8.);
    f.sigma = 0.4 + 0.2 * frequency / 8;
    f.omega = span / (1 + frequency / 2.);
    f.phi = (k % 2) * kPi + kPi * 12 / 32;
    f.theta = (k / 8) * kPi / 4;
  } else if (k < 40) {
    f.sigma = 0.45;
    f.lambda = 0.5;
    f.omega = span;
    f.theta = (k % 8) * kPi / 8;
    f.phi = kPi;
  } else if (k < 46) {
    const int size = (k - 1) % 3;
    f.lambda = 1 / (1 + size / 2.);
    f.sigma = 1. / (2.5 - size / 2.);
    f.omega = kPi / 4;
    f.phi = ((k - 1) / 3) * kPi;
    f.Colors(0.25, -1, 1);
  } else if (k < 48) {
    f.lambda = 2. / 3;
    f.sigma = 1;
    f.omega = span / 12;
    f.theta = (k % 8) * kPi + kPi / 8;
    f.phi = kPi / 2;
    f.Colors(1, 0.1, -0.5);
  } else if (k < 56) {
    f.lambda = 2. / 3;
    f.sigma = 1;
    f.omega = span / 12;
    f.theta = (k % 8) * kPi / 4 + kPi / 32;
    f.phi = kPi / 2;
    f.Colors(-0.5, 0.1, 1);
  } else if (k < 60) {
    f.lambda = 1;
    f.sigma = 1;
    f.omega = span / 12;
    f.theta = (k % 8) * kPi / 2 + kPi / 8;
    f.phi = kPi / 2;
    f.Colors(0.25, -1, 1);
  } else {
    f.lambda = 2. / 3;
    f.sigma = 1;
    f.omega = span / 12;
    f.theta = (k % 8) * kPi / 2 + kPi / 8;
    f.phi = kPi / 2;
    f.Colors(-1, -1, 1);
  }
  return f;
}

Gabor VggLike(int k, double span) {
  Gabor f = GoogLeNetLike(k, span);
  f.sigma = 1;
  return f;
}

Gabor AlexNetLike(int k, double span) {
  Gabor f;
  f.lambda = 1. / 3;
  if (k < 48) {
    const int frequency = k % 8;
    f.lambda /= (1 + frequency / 8.);
    f.sigma = 0.5 + 0.2 * frequency / 8;
    f.omega = span / (1 + frequency / 2.);
    f.phi = (k % 2) * kPi + kPi * 12 / 32;
    f.theta = (k / 8) * kPi / 6;
  } else if (k < 56) {
    const int size = k % 4;
    f.lambda /= (1 + size / 2.);
    f.sigma = 1. / (2.5 - size / 2.);
    f.omega = kPi / 4;
    f.phi = (k / 4) * kPi;
    f.Colors(0.25, -1, 1);
  } else if (k < 60) {
    f.lambda /= 1.5;
    f.sigma = 0.75;
    f.omega = span / 8;
    f.theta = (k % 4) * kPi / 2 + kPi / 8;
    f.phi = kPi / 2;
    f.Colors(-1, 1, -0.5);
  } else if (k < 64) {
    f.lambda /= 3;
    f.sigma = 2;
    f.omega = span / 8;
    f.theta = (k % 4) * kPi / 2 + kPi / 8;
    f.phi = kPi / 2;
    f.Colors(1, -0.5, -0.75);
  } else if (k < 72) {
    f.lambda /= 1.5;
    f.sigma = 0.75;
    f.omega = span / 4;
    f.theta = (k % 8) * kPi / 4 + kPi / 32;
    f.phi = kPi / 2;
    f.Colors(1, 0.1, -0.75);
  } else if (k < 80) {
    f.lambda /= 1.5;
    f.sigma = 1;
    f.omega = span / 12;
    f.theta = (k % 8) * kPi / 4 + kPi / 32;
    f.phi = kPi / 2;
    f.Colors(-0.5, 0.1, 1);
  } else if (k < 88) {
    f.lambda /= 2.5;
    f.sigma = 1;
    f.omega = span / 8;
    f.theta = (k % 8) * kPi / 4 + kPi / 32;
    f.phi = kPi / 2;
    f.Colors(-1, -1, 1);
  } else if (k < 92) {
    f.omega = span / 16;
    f.theta = (k % 4) * kPi / 2 + kPi / 16;
    f.phi = kPi / 2;
  } else {
    f.lambda /= 4;
    f.sigma = 0.75;
    f.omega = span / 4;
    f.theta = (k % 8) * kPi / 4 + kPi / 32;
    f.phi = kPi / 2;
    f.Colors(-1, -1, 1);
  }
  return f;
}

}  // namespace

Status FillGabor(Tensor* weights) {
  const bool shaped =
      weights->num_axes() == 4 && weights->shape(1) == 3 && weights->shape(2) == weights->shape(3);
  const int filters = shaped ? weights->shape(0) : 0, size = shaped ? weights->shape(3) : 0;
  Gabor (*table)(int, double) = nullptr;
  if (filters == 32 && size == 5) table = CifarLike;
  if (filters == 64 && size == 7) table = GoogLeNetLike;
  if (filters == 64 && size == 3) table = VggLike;
  if (filters == 96 && size == 11) table = AlexNetLike;
  if (table == nullptr) {
    return Unsupported(
        "filler \"gabor\" (Intel Caffe's) has filters for 32 x 3 x 5 x 5, "
        "64 x 3 x 7 x 7, 64 x 3 x 3 x 3 and 96 x 3 x 11 x 11 weights only, not " +
        weights->ShapeString());
  }
  const double span = kPi * (size - 1) / 2;
  float* w = weights->mutable_data();
  for (int k = 0; k < filters; ++k) {
    const Gabor f = table(k, span);
    const double colors[3] = {f.r, f.g, f.b};
    for (int ky = 0; ky < size; ++ky) {
      for (int kx = 0; kx < size; ++kx) {
        const double x = 2. * kx / (size - 1) - 1, y = 2. * ky / (size - 1) - 1;
        const double envelope = std::exp(-(x * x + y * y) / (2 * f.sigma * f.sigma));
        const double along = x * std::cos(f.theta) - y * std::sin(f.theta);
        const double value = f.lambda * envelope * std::cos(along * f.omega + f.phi);
        for (int c = 0; c < 3; ++c) {
          w[((k * 3 + c) * size + ky) * size + kx] = static_cast<float>(colors[c] * value);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
