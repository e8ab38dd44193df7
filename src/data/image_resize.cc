#include "data/image_resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace dtrain {
namespace {

constexpr int kCoefOne = 1 << 11;  // OpenCV's INTER_RESIZE_COEF_SCALE

// The first source index (before clamping) and the four fixed-point weights of each output
// coordinate: `first` holds out_size values, `weights` 4 * out_size.
void CubicTaps(int in_size, int out_size, int* first, int* weights) {
  const double scale = 1.0 / (static_cast<double>(out_size) / in_size);
  const float a = -0.75f;
  for (int d = 0; d < out_size; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    const int s = static_cast<int>(std::floor(f));
    f -= static_cast<float>(s);
    float w[4];
    w[0] = ((a * (f + 1) - 5 * a) * (f + 1) + 8 * a) * (f + 1) - 4 * a;
    w[1] = ((a + 2) * f - (a + 3)) * f * f + 1;
    w[2] = ((a + 2) * (1 - f) - (a + 3)) * (1 - f) * (1 - f) + 1;
    w[3] = 1.f - w[0] - w[1] - w[2];
    first[d] = s - 1;
    for (int k = 0; k < 4; ++k) {
      weights[4 * d + k] = static_cast<int>(std::lrint(w[k] * static_cast<float>(kCoefOne)));
    }
  }
}

void ResizeCubic(const HwcImage& in, int out_height, int out_width, uint8_t* out,
                 std::vector<int>* scratch) {
  const int cn = in.channels;
  const size_t row_values = static_cast<size_t>(out_width) * cn;
  std::vector<int> local;
  std::vector<int>& buffer = scratch ? *scratch : local;
  buffer.resize(5 * static_cast<size_t>(out_width) + 5 * static_cast<size_t>(out_height) +
                4 * row_values);
  int* xs = buffer.data();
  int* xw = xs + out_width;
  int* ys = xw + 4 * out_width;
  int* yw = ys + out_height;
  int* ring = yw + 4 * out_height;  // four horizontally resampled source rows
  CubicTaps(in.width, out_width, xs, xw);
  CubicTaps(in.height, out_height, ys, yw);
  // Source row r lives in ring slot r % 4: the rows one output row reads are consecutive.
  int cached[4] = {-1, -1, -1, -1};

  auto horizontal = [&](int y, int* dst) {
    const uint8_t* src = in.pixels + static_cast<size_t>(y) * in.width * cn;
    for (int x = 0; x < out_width; ++x) {
      int taps[4];
      for (int k = 0; k < 4; ++k) taps[k] = std::clamp(xs[x] + k, 0, in.width - 1) * cn;
      const int* w = xw + 4 * x;
      for (int c = 0; c < cn; ++c) {
        dst[x * cn + c] = src[taps[0] + c] * w[0] + src[taps[1] + c] * w[1] +
                          src[taps[2] + c] * w[2] + src[taps[3] + c] * w[3];
      }
    }
  };
  for (int y = 0; y < out_height; ++y) {
    const int* rows[4];
    for (int k = 0; k < 4; ++k) {
      const int r = std::clamp(ys[y] + k, 0, in.height - 1);
      int* slot = ring + static_cast<size_t>(r % 4) * row_values;
      if (cached[r % 4] != r) {
        horizontal(r, slot);
        cached[r % 4] = r;
      }
      rows[k] = slot;
    }
    const int* b = yw + 4 * y;
    uint8_t* dst = out + static_cast<size_t>(y) * row_values;
    for (size_t i = 0; i < row_values; ++i) {
      // 64 bits: four rows of 255 * 2048 * 2048 weights can pass 2^31.
      const int64_t sum =
          static_cast<int64_t>(rows[0][i]) * b[0] + static_cast<int64_t>(rows[1][i]) * b[1] +
          static_cast<int64_t>(rows[2][i]) * b[2] + static_cast<int64_t>(rows[3][i]) * b[3];
      const int64_t value = (sum + (int64_t{1} << 21)) >> 22;
      dst[i] = static_cast<uint8_t>(std::clamp<int64_t>(value, 0, 255));
    }
  }
}

void ResizeNearest(const HwcImage& in, int out_height, int out_width, uint8_t* out) {
  const int cn = in.channels;
  const double fx = 1.0 / (static_cast<double>(out_width) / in.width);
  const double fy = 1.0 / (static_cast<double>(out_height) / in.height);
  std::vector<int> xs(out_width);
  for (int x = 0; x < out_width; ++x) {
    xs[x] = std::min(static_cast<int>(std::floor(x * fx)), in.width - 1) * cn;
  }
  for (int y = 0; y < out_height; ++y) {
    const int sy = std::min(static_cast<int>(std::floor(y * fy)), in.height - 1);
    const uint8_t* src = in.pixels + static_cast<size_t>(sy) * in.width * cn;
    uint8_t* dst = out + static_cast<size_t>(y) * out_width * cn;
    for (int x = 0; x < out_width; ++x) std::memcpy(dst + x * cn, src + xs[x], cn);
  }
}

}  // namespace

std::string InterpolationName(Interpolation mode) {
  switch (mode) {
    case Interpolation::kLinear:
      return "LINEAR";
    case Interpolation::kCubic:
      return "CUBIC";
    case Interpolation::kNearest:
      return "NEAREST";
  }
  return "?";
}

void ResizeImage(const HwcImage& in, int out_height, int out_width, Interpolation mode,
                 uint8_t* out, std::vector<int>* scratch) {
  if (out_height == in.height && out_width == in.width) {
    std::memcpy(out, in.pixels, static_cast<size_t>(in.height) * in.width * in.channels);
    return;
  }
  switch (mode) {
    case Interpolation::kLinear:
      ResizeBilinear(in, out_height, out_width, out, scratch);
      return;
    case Interpolation::kCubic:
      ResizeCubic(in, out_height, out_width, out, scratch);
      return;
    case Interpolation::kNearest:
      ResizeNearest(in, out_height, out_width, out);
      return;
  }
}

}  // namespace dtrain
