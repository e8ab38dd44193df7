// Fillers with Intel Caffe's additions: msra's `scale` and the fixed "gabor" filters. The Gabor
// values expected below were computed by hand from Intel's parameter tables
// (include/caffe/gabor.hpp) in double precision, independently of dtrain's code.
#include "core/filler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "proto/filler.pb.h"

namespace dtrain {
namespace {

float At(const Tensor& w, int k, int c, int ky, int kx) {
  const int size = w.shape(3);
  return w.data()[((k * 3 + c) * size + ky) * size + kx];
}

TEST(FillerTest, MsraScaleMultipliesTheDeviation) {
  FillerParameter p;
  p.set_type("msra");
  p.set_scale(0.5f);
  Tensor w({256, 64, 3, 3});
  Rng rng(3);
  ASSERT_TRUE(Fill(p, rng, &w).ok());
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < w.count(); ++i) {
    sum += w.data()[i];
    sq += static_cast<double>(w.data()[i]) * w.data()[i];
  }
  const double mean = sum / w.count(), stddev = std::sqrt(sq / w.count() - mean * mean);
  EXPECT_NEAR(stddev, 0.5 * std::sqrt(2.0 / 576), 0.01 * 0.5 * std::sqrt(2.0 / 576));
}

TEST(FillerTest, GaborFiltersAreIntelsForItsFourTopologies) {
  FillerParameter p;
  p.set_type("gabor");
  ASSERT_TRUE(ValidateFiller(p).ok());
  Rng rng(1);
  Tensor cifar({32, 3, 5, 5});
  ASSERT_TRUE(Fill(p, rng, &cifar).ok());
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(At(cifar, 0, c, 0, 0), 0.03108826f, 1e-7);
  // Filter 29: the colour-opponent group (-1, 1, -1), rotated by pi/2 + pi/8.
  EXPECT_NEAR(At(cifar, 29, 0, 4, 1), -0.08044048f, 1e-7);
  EXPECT_NEAR(At(cifar, 29, 1, 4, 1), 0.08044048f, 1e-7);
  EXPECT_NEAR(At(cifar, 29, 2, 4, 1), -0.08044048f, 1e-7);

  Tensor alexnet({96, 3, 11, 11});
  ASSERT_TRUE(Fill(p, rng, &alexnet).ok());
  EXPECT_NEAR(At(alexnet, 50, 0, 5, 5), 0.04166667f, 1e-7);
  EXPECT_NEAR(At(alexnet, 50, 1, 5, 5), -0.1666667f, 1e-7);

  Tensor googlenet({64, 3, 7, 7});
  ASSERT_TRUE(Fill(p, rng, &googlenet).ok());
  EXPECT_NEAR(At(googlenet, 47, 0, 3, 6), 0.2683269f, 1e-6);
  EXPECT_NEAR(At(googlenet, 47, 1, 3, 6), 0.02683269f, 1e-7);
  EXPECT_NEAR(At(googlenet, 47, 2, 3, 6), -0.1341634f, 1e-6);

  // VGG's table is GoogLeNet's with sigma 1.
  Tensor vgg({64, 3, 3, 3});
  ASSERT_TRUE(Fill(p, rng, &vgg).ok());
  EXPECT_NEAR(At(vgg, 3, 0, 0, 2), 0.2034456f, 1e-6);

  // Fixed filters: the random stream plays no part.
  Tensor again({32, 3, 5, 5});
  Rng other(99);
  ASSERT_TRUE(Fill(p, other, &again).ok());
  for (int64_t i = 0; i < again.count(); ++i) ASSERT_EQ(again.data()[i], cifar.data()[i]);
}

TEST(FillerTest, GaborRefusesEveryOtherShapeNamingTheFourItHas) {
  FillerParameter p;
  p.set_type("gabor");
  Rng rng(1);
  for (const std::vector<int>& shape : std::vector<std::vector<int>>{
           {10, 3, 5, 5}, {32, 1, 5, 5}, {64, 3, 7, 5}, {96, 3, 11}, {32, 3, 5, 5, 1}}) {
    Tensor w(shape);
    const Status status = Fill(p, rng, &w);
    EXPECT_EQ(status.message(),
              "filler \"gabor\" (Intel Caffe's) has filters for 32 x 3 x 5 x 5, 64 x 3 x 7 x 7, "
              "64 x 3 x 3 x 3 and 96 x 3 x 11 x 11 weights only, not " +
                  w.ShapeString());
  }
}

}  // namespace
}  // namespace dtrain
