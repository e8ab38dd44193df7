// Intel Caffe's random resize and random area/aspect crop: the boxes drawn from a seeded Rng,
// against the same raw numbers drawn here and the box computed from them by Intel's formulas
// (written out again, in double where Intel's float cannot matter), and the checks of the fields.
#include "data/random_resize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace dtrain {
namespace {

// The first `n` raw numbers of Rng(seed).
std::vector<uint32_t> Raw(uint64_t seed, int n) {
  Rng rng(seed);
  std::vector<uint32_t> raw;
  for (int i = 0; i < n; ++i) raw.push_back(rng.Next());
  return raw;
}

TransformationParameter Aspect(float min_area, float max_area, float change, uint32_t attempts,
                               uint32_t crop) {
  TransformationParameter t;
  t.set_crop_size(crop);
  RandomAspectRatioParameter* a = t.mutable_random_aspect_ratio_param();
  a->set_min_area_ratio(min_area);
  a->set_max_area_ratio(max_area);
  a->set_aspect_ratio_change(change);
  a->set_max_attempt(attempts);
  return t;
}

TransformationParameter Resize(uint32_t min_size, uint32_t max_size, uint32_t crop) {
  TransformationParameter t;
  t.set_crop_size(crop);
  t.mutable_random_resize_param()->set_min_size(min_size);
  t.mutable_random_resize_param()->set_max_size(max_size);
  return t;
}

ResizePlan Draw(const TransformationParameter& t, int height, int width, uint64_t seed) {
  Rng rng(seed);
  StatusOr<ResizePlan> plan = DrawResize(t, 3, height, width, rng);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : ResizePlan();
}

// One case worked by hand: a 100 x 200 image (area 20000), area ratios 0.5..1 (501 steps of
// 0.001 from 0.5), aspect changes 0.75..1.333 (int((1.3333334 - 0.75) * 1000 + 1) = 584 steps).
TEST(RandomResize, AspectCropOfOneSeedWorkedByHand) {
  const std::vector<uint32_t> raw = Raw(11, 8);
  ASSERT_EQ(raw, (std::vector<uint32_t>{774252441u, 293375679u, 83645520u, 2854952027u, 1989508433u,
                                        833720247u, 3113567501u, 3978355020u}));
  // Attempt 1: 774252441 % 501 = 27: ratio 0.527, area 10540, sqrt 102.66; 293375679 % 584 =
  // 359: change 1.109; h = int(102.66 * 1.109) = 113, w = int(102.66 / 1.109) = 92; swap coin
  // 83645520 % 1001 = 959 (0.959, not below 0.5); h 113 > 100: no fit.
  // Attempt 2: 2854952027 % 501 = 20: ratio 0.520, area 10400, sqrt 101.98; 1989508433 % 584 =
  // 305: change 1.055; h = int(107.59) = 107, w = int(96.66) = 96; coin 833720247 % 1001 = 360
  // (0.36 < 0.5): swapped, 96 x 107, which fits. Top 3113567501 % (100 - 96 + 1) = 1, left
  // 3978355020 % (200 - 107 + 1) = 70.
  const ResizePlan plan = Draw(Aspect(0.5f, 1.f, 0.75f, 10, 32), 100, 200, 11);
  EXPECT_EQ(plan.y, 1);
  EXPECT_EQ(plan.x, 70);
  EXPECT_EQ(plan.height, 96);
  EXPECT_EQ(plan.width, 107);
  EXPECT_EQ(plan.out_height, 32);
  EXPECT_EQ(plan.out_width, 32);
  EXPECT_EQ(plan.interpolation, Interpolation::kLinear);
}

// The same formulas, again: raw numbers in Intel's order, the box by Intel's arithmetic.
struct Expected {
  int y, x, height, width, out_height, out_width;
};

Expected AspectByFormula(const std::vector<uint32_t>& raw, int height, int width, double min_area,
                         double max_area, double change, int attempts, int crop) {
  size_t next = 0;
  auto ratio = [&](double lo, double hi) {
    const int steps = static_cast<int>((hi - lo) * 1000 + 1 + 1e-6);
    return (raw[next++] % steps + std::lround(lo * 1000)) / 1000.0;
  };
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const double area = ratio(min_area, max_area) * height * width;
    const double c = ratio(change, 1 / change);
    int h = static_cast<int>(std::sqrt(area) * c);
    int w = static_cast<int>(std::sqrt(area) / c);
    if (ratio(0, 1) < 0.5) std::swap(h, w);
    if (h <= height && w <= width && h > 0 && w > 0) {
      const int y = static_cast<int>(raw[next++] % (height - h + 1));
      const int x = static_cast<int>(raw[next++] % (width - w + 1));
      return {y, x, h, w, crop, crop};
    }
  }
  // Shorter side to crop.
  if (height < width) return {0, 0, height, width, crop, crop * width / height};
  return {0, 0, height, width, crop * height / width, crop};
}

TEST(RandomResize, AspectCropsMatchIntelsFormulasOverManySeeds) {
  // 1 - 0.08 and 1 / 0.75 - 0.75 give whole step counts in float and in double alike.
  const TransformationParameter t = Aspect(0.08f, 1.f, 0.75f, 10, 24);
  int fitted = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const int height = 40 + static_cast<int>(seed % 7) * 13,
              width = 90 - static_cast<int>(seed % 5) * 11;
    const Expected e = AspectByFormula(Raw(seed, 60), height, width, 0.08, 1, 0.75, 10, 24);
    const ResizePlan p = Draw(t, height, width, seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(p.y, e.y);
    EXPECT_EQ(p.x, e.x);
    EXPECT_EQ(p.height, e.height);
    EXPECT_EQ(p.width, e.width);
    EXPECT_EQ(p.out_height, e.out_height);
    EXPECT_EQ(p.out_width, e.out_width);
    if (p.out_height == 24 && p.out_width == 24 && p.height != height) ++fitted;
  }
  EXPECT_GT(fitted, 200);  // the attempts do fit, mostly
}

// No attempt can fit (a box of at least half the area, but the image is 1 pixel high... and wide
// enough): the shorter side goes to crop_size.
TEST(RandomResize, AspectFallsBackToTheShorterSideWhenNothingFits) {
  const TransformationParameter t = Aspect(0.5f, 1.f, 1.f, 10, 8);
  // Area ratio >= 0.5 of 2 x 50 with change 1: a square of side >= 7, never 2 high.
  const ResizePlan p = Draw(t, 2, 50, 3);
  EXPECT_EQ(p.y, 0);
  EXPECT_EQ(p.x, 0);
  EXPECT_EQ(p.height, 2);
  EXPECT_EQ(p.width, 50);
  EXPECT_EQ(p.out_height, 8);
  EXPECT_EQ(p.out_width, 200);  // int(float(50) / 2 * 8)
}

TEST(RandomResize, MaxAttemptZeroAlwaysFallsBackAndDrawsNothing) {
  const TransformationParameter t = Aspect(0.5f, 1.f, 0.75f, 0, 10);
  Rng rng(5);
  StatusOr<ResizePlan> p = DrawResize(t, 1, 30, 20, rng);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->out_height, 15);  // int(float(30) / 20 * 10)
  EXPECT_EQ(p->out_width, 10);
  EXPECT_EQ(rng.Next(), Raw(5, 1)[0]);  // no draw was taken
}

TEST(RandomResize, ShorterSideDrawnBetweenMinAndMaxSize) {
  const TransformationParameter t = Resize(256, 480, 224);
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const int shorter = 256 + static_cast<int>(Raw(seed, 1)[0] % 225);
    const ResizePlan p = Draw(t, 375, 500, seed);
    EXPECT_EQ(p.out_height, shorter);
    EXPECT_EQ(p.out_width, static_cast<int>(500.f / 375 * static_cast<float>(shorter)));
    EXPECT_EQ(p.height, 375);
    EXPECT_EQ(p.width, 500);
    // Portrait: the width is the shorter side.
    const ResizePlan q = Draw(t, 500, 375, seed);
    EXPECT_EQ(q.out_width, shorter);
    EXPECT_EQ(q.out_height, p.out_width);
  }
}

// Intel's TEST Data layers: min_size == max_size, a fixed resize of the shorter side.
TEST(RandomResize, EqualMinAndMaxIsAFixedResize) {
  const TransformationParameter t = Resize(256, 256, 224);
  for (uint64_t seed : {1u, 2u, 99u}) {
    const ResizePlan p = Draw(t, 375, 500, seed);
    EXPECT_EQ(p.out_height, 256);
    EXPECT_EQ(p.out_width, 341);  // int(500 / 375 * 256) = int(341.33)
    const ResizePlan square = Draw(t, 300, 300, seed);
    EXPECT_EQ(square.out_height, 256);
    EXPECT_EQ(square.out_width, 256);
  }
}

// min_size 0 and max_size 0 stand for the image's shorter and longer sides (Intel's).
TEST(RandomResize, ZeroSizesStandForTheImagesSides) {
  const TransformationParameter t = Resize(0, 0, 8);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const int shorter = 30 + static_cast<int>(Raw(seed, 1)[0] % 21);  // 30..50
    EXPECT_EQ(Draw(t, 30, 50, seed).out_height, shorter);
  }
  // max_size 0 with min_size above the image's longer side: no size to draw.
  Rng rng(1);
  StatusOr<ResizePlan> p = DrawResize(Resize(60, 0, 8), 3, 30, 50, rng);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "transform_param.random_resize_param: for this 30x50 image, min_size 60 is more than "
            "max_size 0 (its longer side, 50)");
  p = DrawResize(Resize(0, 20, 8), 3, 30, 50, rng);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "transform_param.random_resize_param: for this 30x50 image, min_size 0 (its shorter "
            "side, 30) is more than max_size 20");
}

TEST(RandomResize, SeveralInterpModesAreDrawnLast) {
  TransformationParameter t = Resize(10, 10, 10);
  t.mutable_random_resize_param()->mutable_resize_param()->add_interp_mode(ResizeParameter::CUBIC);
  t.mutable_random_resize_param()->mutable_resize_param()->add_interp_mode(
      ResizeParameter::NEAREST);
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const std::vector<uint32_t> raw = Raw(seed, 2);
    EXPECT_EQ(Draw(t, 20, 20, seed).interpolation,
              raw[1] % 2 == 0 ? Interpolation::kCubic : Interpolation::kNearest);
  }
  TransformationParameter one = Resize(10, 10, 10);
  one.mutable_random_resize_param()->mutable_resize_param()->add_interp_mode(
      ResizeParameter::CUBIC);
  Rng rng(4);
  ASSERT_EQ(DrawResize(one, 1, 20, 20, rng)->interpolation, Interpolation::kCubic);
  EXPECT_EQ(rng.Next(), Raw(4, 2)[1]);  // one mode: no draw for it
  EXPECT_EQ(Draw(Resize(10, 10, 10), 20, 20, 1).interpolation, Interpolation::kLinear);
}

std::string Refusal(const TransformationParameter& t) {
  const Status s = CheckResizeFields(t);
  return s.ok() ? "accepted" : s.message();
}

TEST(RandomResize, FieldsOutsideTheirMeaningAreRefusedByName) {
  EXPECT_EQ(Refusal(Resize(256, 256, 224)), "accepted");
  EXPECT_EQ(Refusal(Aspect(0.08f, 1.f, 0.75f, 0, 224)), "accepted");
  EXPECT_EQ(Refusal(Resize(300, 200, 100)),
            "transform_param.random_resize_param: min_size 300 is more than max_size 200");
  EXPECT_EQ(Refusal(Resize(256, 0, 0)),
            "transform_param.random_resize_param needs crop_size: the resized images differ in "
            "size, and Intel Caffe crops every one to crop_size");
  EXPECT_EQ(Refusal(Resize(200, 300, 224)),
            "transform_param.random_resize_param.min_size 200 is less than crop_size 224: an image "
            "resized to that shorter side cannot be cropped");
  EXPECT_EQ(Refusal(Resize(0, 200, 224)),
            "transform_param.random_resize_param.max_size 200 is less than crop_size 224: an image "
            "resized to that shorter side cannot be cropped");
  EXPECT_EQ(Refusal(Aspect(0.5f, 0.4f, 0.75f, 10, 8)),
            "transform_param.random_aspect_ratio_param: min_area_ratio 0.5 is more than "
            "max_area_ratio 0.4");
  EXPECT_EQ(Refusal(Aspect(0.f, 1.f, 0.75f, 10, 8)),
            "transform_param.random_aspect_ratio_param.min_area_ratio 0 is outside (0, 1]");
  EXPECT_EQ(Refusal(Aspect(0.5f, 1.5f, 0.75f, 10, 8)),
            "transform_param.random_aspect_ratio_param.max_area_ratio 1.5 is outside (0, 1]");
  EXPECT_EQ(Refusal(Aspect(0.5f, 1.f, 0.f, 10, 8)),
            "transform_param.random_aspect_ratio_param.aspect_ratio_change 0 is outside (0, 1]");
  EXPECT_EQ(Refusal(Aspect(0.5f, 1.f, 1.25f, 10, 8)),
            "transform_param.random_aspect_ratio_param.aspect_ratio_change 1.25 is outside (0, 1]");
  EXPECT_EQ(Refusal(Aspect(0.5f, 1.f, NAN, 10, 8)),
            "transform_param.random_aspect_ratio_param.aspect_ratio_change nan is outside (0, 1]");
  EXPECT_EQ(Refusal(Aspect(0.5f, 1.f, 0.75f, 10, 0)),
            "transform_param.random_aspect_ratio_param needs crop_size: Intel Caffe resizes every "
            "crop it draws to crop_size x crop_size");

  // Every interpolation OpenCV names is accepted now (AREA and LANCZOS4 included).
  TransformationParameter modes = Aspect(0.5f, 1.f, 0.75f, 10, 8);
  modes.mutable_random_aspect_ratio_param()->mutable_resize_param()->add_interp_mode(
      ResizeParameter::AREA);
  modes.mutable_random_aspect_ratio_param()->mutable_resize_param()->add_interp_mode(
      ResizeParameter::LANCZOS4);
  EXPECT_TRUE(CheckResizeFields(modes).ok());
  TransformationParameter fit = Resize(256, 256, 224);
  fit.mutable_random_resize_param()->mutable_resize_param()->set_resize_mode(
      ResizeParameter::FIT_SMALL_SIZE);
  EXPECT_EQ(Refusal(fit),
            "transform_param.random_resize_param.resize_param.resize_mode FIT_SMALL_SIZE: dtrain "
            "resizes as Intel Caffe's WARP only (the size is the random resize's own)");
  TransformationParameter both = Resize(256, 256, 224);
  *both.mutable_random_aspect_ratio_param() = RandomAspectRatioParameter();
  EXPECT_EQ(Refusal(both),
            "transform_param.random_aspect_ratio_param with random_resize_param: Intel Caffe "
            "applies only random_resize_param when both are given; keep one");
  TransformationParameter padded;
  padded.set_pad(2);
  padded.set_mean_file("mean.binaryproto");
  EXPECT_EQ(Refusal(padded),
            "transform_param.pad with mean_file: Intel Caffe reads the mean image shifted by pad "
            "there (and past its end); give mean_value instead");
}

TEST(RandomResize, AnAbsurdSizeIsRefusedBeforeAnythingIsAllocated) {
  const std::string message = Refusal(Resize(224, 4000000000u, 224));
  EXPECT_EQ(message.rfind("transform_param.random_resize_param: an image resized to a shorter "
                          "side of 4000000000 takes at least ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find(", more than this machine's memory ("), std::string::npos) << message;
  // min_size 0 / max_size 0 follow the image: a huge, thin image's shorter side...
  Rng rng(1);
  StatusOr<ResizePlan> p = DrawResize(Resize(60000, 60000, 8), 3, 1, 100000, rng);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().rfind(
                "transform_param.random_resize_param: the image (3x1x100000) resized to a shorter "
                "side of 60000 would take ",
                0),
            0u)
      << p.status().message();
}

}  // namespace
}  // namespace dtrain
