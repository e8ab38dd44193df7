// The pixel arithmetic under the SSD augmentations: OpenCV's INTER_AREA and INTER_LANCZOS4
// (image_resize.h) and the photometric distortion (photometric_distortion.h). Expected values
// are worked out by hand in the comments, or by an independent formula (area averages and the
// Lanczos kernel in double) that the fixed-point code may miss by 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/rng.h"
#include "data/image_resize.h"
#include "data/photometric_distortion.h"

namespace dtrain {
namespace {

std::vector<uint8_t> Resized(const std::vector<uint8_t>& in, int cn, int h, int w, int out_h,
                             int out_w, Interpolation mode) {
  std::vector<uint8_t> out(static_cast<size_t>(out_h) * out_w * cn);
  ResizeImage({in.data(), cn, h, w}, out_h, out_w, mode, out.data());
  return out;
}

std::vector<uint8_t> RandomPixels(size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint8_t> pixels(count);
  for (uint8_t& p : pixels) p = static_cast<uint8_t>(rng.Next() % 256);
  return pixels;
}

TEST(AnnotatedTransformerArea, TwoByTwoBlocksRoundHalfUpAsOpenCVsVectorPath) {
  // 4x4 -> 2x2: each output is the mean of a 2x2 block, (sum + 2) >> 2.
  // Blocks: {1, 2, 5, 6} sum 14 -> 16 >> 2 = 4 (3.5 rounds up); {3, 4, 7, 8} 22 -> 6 (5.5 up);
  // {9, 10, 13, 14} 46 -> 12 (11.5 up); {11, 12, 15, 16} 54 -> 14 (13.5 up).
  const std::vector<uint8_t> in = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  EXPECT_EQ(Resized(in, 1, 4, 4, 2, 2, Interpolation::kArea), (std::vector<uint8_t>{4, 6, 12, 14}));
}

TEST(AnnotatedTransformerArea, WholeFactorsOtherThanTwoRoundTiesToEven) {
  // 2x1 blocks (a 1x4 row to 1x2): sum * 0.5f rounded to even: {1, 2} 1.5 -> 2, {3, 4} 3.5 -> 4;
  // {2, 3} 2.5 -> 2, {4, 5} 4.5 -> 4.
  EXPECT_EQ(Resized({1, 2, 3, 4}, 1, 1, 4, 1, 2, Interpolation::kArea),
            (std::vector<uint8_t>{2, 4}));
  EXPECT_EQ(Resized({2, 3, 4, 5}, 1, 1, 4, 1, 2, Interpolation::kArea),
            (std::vector<uint8_t>{2, 4}));
  // 3x3 -> 1x1: (1 + ... + 9) / 9 = 5; two channels, each on its own (the second: 10 .. 90,
  // mean 50).
  std::vector<uint8_t> two;
  for (int i = 1; i <= 9; ++i) {
    two.push_back(static_cast<uint8_t>(i));
    two.push_back(static_cast<uint8_t>(10 * i));
  }
  EXPECT_EQ(Resized(two, 2, 3, 3, 1, 1, Interpolation::kArea), (std::vector<uint8_t>{5, 50}));
}

TEST(AnnotatedTransformerArea, FractionalCellsWeighByCoverage) {
  // A 1x3 row to 1x2: cells [0, 1.5) and [1.5, 3) of width 1.5.
  // out0 = (10 * 1 + 20 * 0.5) / 1.5 = 13.33 -> 13; out1 = (20 * 0.5 + 40 * 1) / 1.5 = 33.3 -> 33.
  EXPECT_EQ(Resized({10, 20, 40}, 1, 1, 3, 1, 2, Interpolation::kArea),
            (std::vector<uint8_t>{13, 33}));
}

TEST(AnnotatedTransformerArea, ShrinkingMatchesTheAreaAverageWithinOne) {
  // The independent formula: the integral of the piecewise-constant image over each output cell,
  // divided by the cell's area, in double.
  const int h = 13, w = 17, cn = 3, out_h = 5, out_w = 7;
  const std::vector<uint8_t> in = RandomPixels(static_cast<size_t>(h) * w * cn, 7);
  const std::vector<uint8_t> out = Resized(in, cn, h, w, out_h, out_w, Interpolation::kArea);
  const double sy = static_cast<double>(h) / out_h, sx = static_cast<double>(w) / out_w;
  auto overlap = [](double a0, double a1, double b0, double b1) {
    return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
  };
  int exact = 0, total = 0;
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x) {
      for (int c = 0; c < cn; ++c) {
        double sum = 0;
        for (int iy = 0; iy < h; ++iy) {
          for (int ix = 0; ix < w; ++ix) {
            sum += overlap(iy, iy + 1, y * sy, (y + 1) * sy) *
                   overlap(ix, ix + 1, x * sx, (x + 1) * sx) * in[(iy * w + ix) * cn + c];
          }
        }
        const int expected = static_cast<int>(std::lround(sum / (sy * sx)));
        const int got = out[(y * out_w + x) * cn + c];
        EXPECT_LE(std::abs(got - expected), 1) << "(" << y << ", " << x << ", " << c << ")";
        exact += got == expected;
        ++total;
      }
    }
  }
  EXPECT_GE(exact, total * 95 / 100);
}

TEST(AnnotatedTransformerArea, GrowingIsOpenCVsBilinearVariant) {
  // A 1x2 row {10, 21} to 1x3, scale 2/3: column 0 takes sx 0, f = 1 - 1.5 < 0 -> 0: 10;
  // column 1 sx = floor(2/3) = 0, f = 2 - 1.5 = 0.5: (10 * 1024 + 21 * 1024) = 31744, and the
  // vertical pass (one row, weight 2048): ((31744 >> 4) * 2048 >> 16 + 2) >> 2 = (62 + 2) >> 2
  // = 16 (15.5 up); column 2 sx = floor(4/3) = 1, the last column: 21.
  EXPECT_EQ(Resized({10, 21}, 1, 1, 2, 1, 3, Interpolation::kArea),
            (std::vector<uint8_t>{10, 16, 21}));
}

// The Lanczos-4 kernel at distance t, in double.
double Lanczos(double t) {
  if (std::fabs(t) < 1e-9) return 1;
  const double a = M_PI * t;
  return std::sin(a) * std::sin(a / 4) / (a * a / 4);
}

TEST(AnnotatedTransformerLanczos, MatchesTheNormalisedKernelWithinOne) {
  // Independent formula: per axis the 8 taps floor(f) - 3 .. floor(f) + 4 (clamped), weights
  // Lanczos(f - tap) divided by their sum, f = (x + 0.5) in / out - 0.5; separable; rounded.
  for (const auto& [h, w, out_h, out_w] :
       std::vector<std::array<int, 4>>{{9, 11, 17, 23}, {20, 16, 7, 9}, {5, 5, 12, 3}}) {
    SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " to " + std::to_string(out_h) +
                 "x" + std::to_string(out_w));
    const int cn = 3;
    const std::vector<uint8_t> in = RandomPixels(static_cast<size_t>(h) * w * cn, h * 100 + w);
    const std::vector<uint8_t> out = Resized(in, cn, h, w, out_h, out_w, Interpolation::kLanczos4);
    auto taps = [](int d, int in_size, int out_size, int* first, double* weights) {
      const double f = (d + 0.5) * in_size / out_size - 0.5;
      *first = static_cast<int>(std::floor(f)) - 3;
      double sum = 0;
      for (int k = 0; k < 8; ++k) sum += weights[k] = Lanczos(f - (*first + k));
      for (int k = 0; k < 8; ++k) weights[k] /= sum;
    };
    int exact = 0, total = 0;
    for (int y = 0; y < out_h; ++y) {
      int fy;
      double wy[8];
      taps(y, h, out_h, &fy, wy);
      for (int x = 0; x < out_w; ++x) {
        int fx;
        double wx[8];
        taps(x, w, out_w, &fx, wx);
        for (int c = 0; c < cn; ++c) {
          double value = 0;
          for (int i = 0; i < 8; ++i) {
            for (int j = 0; j < 8; ++j) {
              const int sy = std::clamp(fy + i, 0, h - 1), sx = std::clamp(fx + j, 0, w - 1);
              value += wy[i] * wx[j] * in[(sy * w + sx) * cn + c];
            }
          }
          const int expected = static_cast<int>(std::clamp(std::round(value), 0.0, 255.0));
          const int got = out[(y * out_w + x) * cn + c];
          EXPECT_LE(std::abs(got - expected), 1) << "(" << y << ", " << x << ", " << c << ")";
          exact += got == expected;
          ++total;
        }
      }
    }
    EXPECT_GE(exact, total * 9 / 10);
  }
}

TEST(AnnotatedTransformerLanczos, ConstantImagesStayAndSameSizeCopies) {
  // A 1x1 image: every tap is its pixel; the rounded weights sum to 2048 within a few units,
  // far from moving 77 by one level. A same-size resize copies.
  EXPECT_EQ(Resized({77}, 1, 1, 1, 3, 4, Interpolation::kLanczos4), std::vector<uint8_t>(12, 77));
  EXPECT_EQ(Resized({1, 2, 3}, 1, 1, 3, 1, 3, Interpolation::kLanczos4),
            (std::vector<uint8_t>{1, 2, 3}));
}

TEST(AnnotatedTransformerDistortion, BrightnessAndContrastRoundTiesToEvenAndSaturate) {
  // Brightness +10.5: 0 -> 10.5 -> 10 (even), 1 -> 11.5 -> 12, 250 -> 260.5 -> 255.
  std::vector<uint8_t> bgr = {0, 1, 250};
  AdjustBrightness(10.5f, bgr.data(), 1);
  EXPECT_EQ(bgr, (std::vector<uint8_t>{10, 12, 255}));
  // Brightness -0.5: 1 -> 0.5 -> 0, 2 -> 1.5 -> 2, 0 -> -0.5 -> 0.
  bgr = {1, 2, 0};
  AdjustBrightness(-0.5f, bgr.data(), 1);
  EXPECT_EQ(bgr, (std::vector<uint8_t>{0, 2, 0}));
  // Contrast 1.5: 3 -> 4.5 -> 4, 5 -> 7.5 -> 8, 200 -> 300 -> 255.
  bgr = {3, 5, 200};
  AdjustContrast(1.5f, bgr.data(), 1);
  EXPECT_EQ(bgr, (std::vector<uint8_t>{4, 8, 255}));
}

TEST(AnnotatedTransformerDistortion, HsvAsOpenCVComputesIt) {
  uint8_t hsv[3], bgr[3];
  // B, G, R = 10, 20, 30: V = 30, S = 20 * round(255 * 4096 / 30) = 696320, (+ 2048) >> 12 =
  // 170; red is max: H = (G - B) * round(180 * 4096 / 120) = 10 * 6144, (+ 2048) >> 12 = 15.
  const uint8_t brown[3] = {10, 20, 30};
  BgrToHsv(brown, hsv);
  EXPECT_EQ(std::vector<uint8_t>(hsv, hsv + 3), (std::vector<uint8_t>{15, 170, 30}));
  // Pure blue: H = (R - G + 4 * 255) * 482 (+ 2048) >> 12 = 120; green: 60; red: 0.
  const uint8_t blue[3] = {255, 0, 0}, green[3] = {0, 255, 0}, red[3] = {0, 0, 255};
  BgrToHsv(blue, hsv);
  EXPECT_EQ(hsv[0], 120);
  BgrToHsv(green, hsv);
  EXPECT_EQ(hsv[0], 60);
  BgrToHsv(red, hsv);
  EXPECT_EQ(std::vector<uint8_t>(hsv, hsv + 3), (std::vector<uint8_t>{0, 255, 255}));
  // Back: H 15 is 0.5 of sector 0, s = 2/3, v = 30/255: B = v (1 - s) = 10, G = v (1 - s / 2)
  // = 20, R = v = 30.
  const uint8_t back[3] = {15, 170, 30};
  HsvToBgr(back, bgr);
  EXPECT_EQ(std::vector<uint8_t>(bgr, bgr + 3), (std::vector<uint8_t>{10, 20, 30}));
  // H 190 (past 180 after a hue shift) wraps: 190 * 6 / 180 = 6.33 -> sector 0 at 1/3.
  const uint8_t wrapped[3] = {190, 255, 255}, same[3] = {10, 255, 255};
  uint8_t expected[3];
  HsvToBgr(wrapped, bgr);
  HsvToBgr(same, expected);
  EXPECT_EQ(std::vector<uint8_t>(bgr, bgr + 3), std::vector<uint8_t>(expected, expected + 3));
}

TEST(AnnotatedTransformerDistortion, SaturationAndHueThroughHsv) {
  // Saturation 0.5 on (10, 20, 30): HSV (15, 170, 30) -> S 85 -> s = 1/3: B = v (1 - s) = 20,
  // G = v (1 - s / 2) = 25, R = 30.
  std::vector<uint8_t> bgr = {10, 20, 30};
  AdjustSaturation(0.5f, bgr.data(), 1);
  EXPECT_EQ(bgr, (std::vector<uint8_t>{20, 25, 30}));
  // Factor 1 still makes the round trip (the fork's test never skips it): exact here.
  bgr = {10, 20, 30};
  AdjustSaturation(1.f, bgr.data(), 1);
  EXPECT_EQ(bgr, (std::vector<uint8_t>{10, 20, 30}));
  // Hue +30: H 15 -> 45, 1.5 sectors: sector 1 at 0.5: B = v (1 - s) = 10, G = v = 30,
  // R = v (1 - s / 2) = 20.
  bgr = {10, 20, 30};
  AdjustHue(30.f, bgr.data(), 1);
  EXPECT_EQ(bgr, (std::vector<uint8_t>{10, 30, 20}));
  // Hue -20: H 15 - 20 saturates at 0 (pure sector 0): B = 10, G = v (1 - s) = 10, R = 30.
  bgr = {10, 20, 30};
  AdjustHue(-20.f, bgr.data(), 1);
  EXPECT_EQ(bgr, (std::vector<uint8_t>{10, 10, 30}));
}

TEST(AnnotatedTransformerDistortion, DrawsInTheForksOrder) {
  DistortionParameter p;
  p.set_brightness_prob(1);
  p.set_brightness_delta(40);
  p.set_contrast_prob(1);
  p.set_contrast_lower(0.5f);
  p.set_contrast_upper(1.5f);
  p.set_random_order_prob(1);
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::vector<uint8_t> pixels = {10, 100, 200, 30, 60, 90};
    std::vector<uint8_t> expected = pixels;
    Rng rng(seed), replay(seed);
    ApplyDistortion(p, rng, pixels.data(), 2);
    // The replay: order coin, brightness (p, delta), then contrast right away (coin > 0.5) or
    // after saturation's and hue's p; channel order p and two swaps.
    const bool contrast_second = replay.Uniform(0.f, 1.f) > 0.5f;
    replay.Uniform(0.f, 1.f);
    AdjustBrightness(replay.Uniform(-40.f, 40.f), expected.data(), 2);
    if (!contrast_second) {
      replay.Uniform(0.f, 1.f);  // saturation's p
      replay.Uniform(0.f, 1.f);  // hue's p
    }
    replay.Uniform(0.f, 1.f);
    AdjustContrast(replay.Uniform(0.5f, 1.5f), expected.data(), 2);
    if (contrast_second) {
      replay.Uniform(0.f, 1.f);
      replay.Uniform(0.f, 1.f);
    }
    replay.Uniform(0.f, 1.f);
    int order[3] = {0, 1, 2};
    std::swap(order[1], order[replay.UniformInt(2)]);
    std::swap(order[2], order[replay.UniformInt(3)]);
    const std::vector<uint8_t> before = expected;
    for (int i = 0; i < 2; ++i) {
      for (int c = 0; c < 3; ++c) expected[3 * i + c] = before[3 * i + order[c]];
    }
    EXPECT_EQ(pixels, expected) << "seed " << seed;
    EXPECT_EQ(rng.Next(), replay.Next()) << "seed " << seed << ": as many draws";
  }
}

TEST(AnnotatedTransformerDistortion, ValidationNamesTheField) {
  auto refusal = [](const DistortionParameter& p) { return ValidateDistortion(p).message(); };
  DistortionParameter p;
  EXPECT_TRUE(ValidateDistortion(p).ok());
  p.set_brightness_delta(-1);  // harmless while brightness_prob is 0, as in the fork
  EXPECT_TRUE(ValidateDistortion(p).ok());
  p.set_brightness_prob(0.5f);
  EXPECT_EQ(refusal(p), "transform_param.distort_param.brightness_delta -1 must be non-negative");
  p = DistortionParameter();
  p.set_contrast_prob(1);
  p.set_contrast_lower(1.5f);
  p.set_contrast_upper(0.5f);
  EXPECT_EQ(refusal(p),
            "transform_param.distort_param.contrast_upper 0.5 is less than "
            "contrast_lower 1.5");
  p = DistortionParameter();
  p.set_saturation_prob(1);
  p.set_saturation_lower(-1);
  EXPECT_EQ(refusal(p), "transform_param.distort_param.saturation_lower -1 must be non-negative");
  p = DistortionParameter();
  p.set_hue_prob(1);
  p.set_hue_delta(-2);
  EXPECT_EQ(refusal(p), "transform_param.distort_param.hue_delta -2 must be non-negative");
  p = DistortionParameter();
  p.set_hue_delta(NAN);
  EXPECT_EQ(refusal(p),
            "transform_param.distort_param.hue_delta nan must be a finite number of "
            "at most 1e30 in magnitude");
  p = DistortionParameter();
  p.set_random_order_prob(INFINITY);
  EXPECT_EQ(refusal(p),
            "transform_param.distort_param.random_order_prob inf must be a finite "
            "number of at most 1e30 in magnitude");
  p = DistortionParameter();
  p.set_contrast_upper(1e38f);
  EXPECT_EQ(refusal(p),
            "transform_param.distort_param.contrast_upper 1e+38 must be a finite "
            "number of at most 1e30 in magnitude");
}

}  // namespace
}  // namespace dtrain
