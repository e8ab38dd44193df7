#include "data/image_resize.h"

#include <algorithm>
#include <cfloat>
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

// ---- fixed-point separable resizes with k taps (LANCZOS4, AREA when growing) -------------------

// Per output coordinate the first source index (before clamping) and k weights in 11-bit fixed
// point.
struct Taps {
  int k = 0;
  std::vector<int> first;
  std::vector<int> weights;  // k per coordinate
};

// OpenCV's interpolateLanczos4 (4.x): weights of the taps at distances x + 3 - i, i = 0..7.
void Lanczos4Weights(float x, float* w) {
  const double s45 = 0.70710678118654752440084436210485;
  // cos and sin of the phase of each tap, relative to the first one's.
  const double phase[8][2] = {{1, 0},  {-s45, -s45}, {0, 1},  {s45, -s45},
                              {-1, 0}, {s45, s45},   {0, -1}, {-s45, s45}};
  const double y0 = -(x + 3) * M_PI * 0.25;
  const double s0 = std::sin(y0), c0 = std::cos(y0);
  float sum = 0;
  for (int i = 0; i < 8; ++i) {
    const float t = x + 3 - i;
    if (std::fabs(t) >= 1e-6f) {
      const double y = -t * M_PI * 0.25;
      w[i] = static_cast<float>((phase[i][0] * s0 + phase[i][1] * c0) / (y * y));
    } else {
      w[i] = 1e30f;  // the tap under the sample: all the weight
    }
    sum += w[i];
  }
  const float inverse = 1.f / sum;
  for (int i = 0; i < 8; ++i) w[i] *= inverse;
}

int FixedWeight(float w) { return static_cast<int>(std::lrint(w * static_cast<float>(kCoefOne))); }

Taps Lanczos4Taps(int in_size, int out_size) {
  Taps taps;
  taps.k = 8;
  const double scale = 1.0 / (static_cast<double>(out_size) / in_size);
  for (int d = 0; d < out_size; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    const int s = static_cast<int>(std::floor(f));
    f -= static_cast<float>(s);
    float w[8];
    Lanczos4Weights(f, w);
    taps.first.push_back(s - 3);
    for (float weight : w) taps.weights.push_back(FixedWeight(weight));
  }
  return taps;
}

// INTER_AREA's bilinear stand-in where an axis grows. `clamp_end` moves a sample at or past
// the last source index onto it (OpenCV does so for columns, not rows).
Taps AreaLinearTaps(int in_size, int out_size, bool clamp_end) {
  Taps taps;
  taps.k = 2;
  const double inv_scale = static_cast<double>(out_size) / in_size;
  const double scale = 1.0 / inv_scale;
  for (int d = 0; d < out_size; ++d) {
    int s = static_cast<int>(std::floor(d * scale));
    float f = static_cast<float>((d + 1) - (s + 1) * inv_scale);
    f = f <= 0 ? 0.f : f - std::floor(f);
    if (clamp_end && s >= in_size - 1) {
      s = in_size - 1;
      f = 0.f;
    }
    taps.first.push_back(s);
    taps.weights.push_back(FixedWeight(1.f - f));
    taps.weights.push_back(FixedWeight(f));
  }
  return taps;
}

enum class VerticalRounding {
  kExact,        // (v + 2^21) >> 22
  kLinearVector  // OpenCV's VResizeLinearVec_32s8u, as ResizeBilinear
};

void ResizeSeparable(const HwcImage& in, int out_height, int out_width, const Taps& xt,
                     const Taps& yt, VerticalRounding rounding, uint8_t* out) {
  const int cn = in.channels;
  const int kx = xt.k, ky = yt.k;
  const size_t row_values = static_cast<size_t>(out_width) * cn;
  // Source row r, resampled horizontally, lives in ring slot r % ky: the ky rows one output row
  // reads are consecutive (after clamping, distinct ones stay consecutive).
  std::vector<int> ring(static_cast<size_t>(ky) * row_values);
  std::vector<int> cached(ky, -1);
  std::vector<int> columns(static_cast<size_t>(out_width) * kx);
  for (int x = 0; x < out_width; ++x) {
    for (int k = 0; k < kx; ++k) {
      columns[static_cast<size_t>(x) * kx + k] = std::clamp(xt.first[x] + k, 0, in.width - 1) * cn;
    }
  }
  auto horizontal = [&](int y, int* dst) {
    const uint8_t* src = in.pixels + static_cast<size_t>(y) * in.width * cn;
    for (int x = 0; x < out_width; ++x) {
      const int* taps = &columns[static_cast<size_t>(x) * kx];
      const int* w = &xt.weights[static_cast<size_t>(x) * kx];
      for (int c = 0; c < cn; ++c) {
        int sum = 0;
        for (int k = 0; k < kx; ++k) sum += src[taps[k] + c] * w[k];
        dst[x * cn + c] = sum;
      }
    }
  };
  std::vector<const int*> rows(ky);
  for (int y = 0; y < out_height; ++y) {
    for (int k = 0; k < ky; ++k) {
      const int r = std::clamp(yt.first[y] + k, 0, in.height - 1);
      int* slot = ring.data() + static_cast<size_t>(r % ky) * row_values;
      if (cached[r % ky] != r) {
        horizontal(r, slot);
        cached[r % ky] = r;
      }
      rows[k] = slot;
    }
    const int* b = &yt.weights[static_cast<size_t>(y) * ky];
    uint8_t* dst = out + static_cast<size_t>(y) * row_values;
    for (size_t i = 0; i < row_values; ++i) {
      int64_t value;
      if (rounding == VerticalRounding::kLinearVector) {
        const int sum = (((rows[0][i] >> 4) * b[0]) >> 16) + (((rows[1][i] >> 4) * b[1]) >> 16);
        value = (sum + 2) >> 2;
      } else {
        int64_t sum = 0;
        for (int k = 0; k < ky; ++k) sum += static_cast<int64_t>(rows[k][i]) * b[k];
        value = (sum + (int64_t{1} << 21)) >> 22;
      }
      dst[i] = static_cast<uint8_t>(std::clamp<int64_t>(value, 0, 255));
    }
  }
}

// ---- INTER_AREA when shrinking -----------------------------------------------------------------

// One source index's share of one output index (OpenCV's DecimateAlpha).
struct AreaShare {
  int out, in;
  float weight;
};

// OpenCV's computeResizeAreaTab: the shares of every output cell of width `scale`, in order.
std::vector<AreaShare> AreaShares(int in_size, int out_size, double scale) {
  std::vector<AreaShare> shares;
  for (int d = 0; d < out_size; ++d) {
    const double start = d * scale, end = start + scale;
    const double cell = std::min(scale, in_size - start);
    int first_whole = static_cast<int>(std::ceil(start));
    int last = std::min(static_cast<int>(std::floor(end)), in_size - 1);
    first_whole = std::min(first_whole, last);
    if (first_whole - start > 1e-3) {
      shares.push_back({d, first_whole - 1, static_cast<float>((first_whole - start) / cell)});
    }
    for (int s = first_whole; s < last; ++s) {
      shares.push_back({d, s, static_cast<float>(1.0 / cell)});
    }
    if (end - last > 1e-3) {
      shares.push_back(
          {d, last, static_cast<float>(std::min(std::min(end - last, 1.0), cell) / cell)});
    }
  }
  return shares;
}

void ResizeAreaShrink(const HwcImage& in, int out_height, int out_width, double scale_x,
                      double scale_y, uint8_t* out) {
  const int cn = in.channels;
  const std::vector<AreaShare> xs = AreaShares(in.width, out_width, scale_x);
  const std::vector<AreaShare> ys = AreaShares(in.height, out_height, scale_y);
  const size_t row_values = static_cast<size_t>(out_width) * cn;
  std::vector<float> row(row_values), sum(row_values, 0.f);
  auto flush = [&](int y) {
    uint8_t* dst = out + static_cast<size_t>(y) * row_values;
    for (size_t i = 0; i < row_values; ++i) {
      dst[i] = static_cast<uint8_t>(std::clamp(std::lrint(sum[i]), 0L, 255L));
      sum[i] = 0.f;
    }
  };
  int current = ys.empty() ? 0 : ys.front().out;
  for (const AreaShare& ry : ys) {
    if (ry.out != current) {
      flush(current);
      current = ry.out;
    }
    const uint8_t* src = in.pixels + static_cast<size_t>(ry.in) * in.width * cn;
    std::fill(row.begin(), row.end(), 0.f);
    for (const AreaShare& rx : xs) {
      for (int c = 0; c < cn; ++c) {
        row[rx.out * cn + c] += src[rx.in * cn + c] * rx.weight;
      }
    }
    for (size_t i = 0; i < row_values; ++i) sum[i] += ry.weight * row[i];
  }
  flush(current);
}

// Whole factors kx x ky: the mean of each block.
void ResizeAreaBlocks(const HwcImage& in, int out_height, int out_width, int kx, int ky,
                      uint8_t* out) {
  const int cn = in.channels;
  const bool shift_rounding = kx == 2 && ky == 2 && (cn == 1 || cn == 3 || cn == 4);
  const float inverse_area = 1.f / static_cast<float>(kx * ky);
  for (int y = 0; y < out_height; ++y) {
    uint8_t* dst = out + static_cast<size_t>(y) * out_width * cn;
    for (int x = 0; x < out_width; ++x) {
      for (int c = 0; c < cn; ++c) {
        int sum = 0;
        for (int dy = 0; dy < ky; ++dy) {
          const uint8_t* src = in.pixels + (static_cast<size_t>(y * ky + dy) * in.width) * cn;
          for (int dx = 0; dx < kx; ++dx) sum += src[(x * kx + dx) * cn + c];
        }
        const long value =
            shift_rounding ? (sum + 2) >> 2 : std::lrint(static_cast<float>(sum) * inverse_area);
        dst[x * cn + c] = static_cast<uint8_t>(std::clamp(value, 0L, 255L));
      }
    }
  }
}

void ResizeArea(const HwcImage& in, int out_height, int out_width, uint8_t* out) {
  const double inv_scale_x = static_cast<double>(out_width) / in.width;
  const double inv_scale_y = static_cast<double>(out_height) / in.height;
  const double scale_x = 1.0 / inv_scale_x, scale_y = 1.0 / inv_scale_y;
  if (scale_x >= 1 && scale_y >= 1) {
    const long kx = std::lrint(scale_x), ky = std::lrint(scale_y);
    if (std::abs(scale_x - static_cast<double>(kx)) < DBL_EPSILON &&
        std::abs(scale_y - static_cast<double>(ky)) < DBL_EPSILON) {
      ResizeAreaBlocks(in, out_height, out_width, static_cast<int>(kx), static_cast<int>(ky), out);
    } else {
      ResizeAreaShrink(in, out_height, out_width, scale_x, scale_y, out);
    }
    return;
  }
  ResizeSeparable(in, out_height, out_width, AreaLinearTaps(in.width, out_width, true),
                  AreaLinearTaps(in.height, out_height, false), VerticalRounding::kLinearVector,
                  out);
}

void ResizeLanczos4(const HwcImage& in, int out_height, int out_width, uint8_t* out) {
  ResizeSeparable(in, out_height, out_width, Lanczos4Taps(in.width, out_width),
                  Lanczos4Taps(in.height, out_height), VerticalRounding::kExact, out);
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
    case Interpolation::kArea:
      return "AREA";
    case Interpolation::kLanczos4:
      return "LANCZOS4";
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
    case Interpolation::kArea:
      ResizeArea(in, out_height, out_width, out);
      return;
    case Interpolation::kLanczos4:
      ResizeLanczos4(in, out_height, out_width, out);
      return;
  }
}

}  // namespace dtrain
