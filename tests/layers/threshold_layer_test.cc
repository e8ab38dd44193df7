#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/in_place_check.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

TEST(ThresholdLayerTest, ForwardByHand) {
  auto layer = MakeLayer(R"(name: "t" type: "Threshold" threshold_param { threshold: 0.5 })");
  Tensor x({5}), y;
  FillValues(&x, {0.2f, 0.5f, 0.7f, -1.f, 3.f});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(testing::Values(y), (std::vector<float>{0.f, 0.f, 1.f, 0.f, 1.f}));  // x > threshold
}

TEST(ThresholdLayerTest, DefaultThresholdIsZero) {
  auto layer = MakeLayer(R"(name: "t" type: "Threshold")");
  Tensor x({3}), y;
  FillValues(&x, {-0.1f, 0.f, 0.1f});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(testing::Values(y), (std::vector<float>{0.f, 0.f, 1.f}));
}

TEST(ThresholdLayerTest, HasNoGradient) {
  auto layer = MakeLayer(R"(name: "t" type: "Threshold")");
  EXPECT_FALSE(layer->HasGradient());
  EXPECT_FALSE(layer->AllowForceBackward(0));
  // Backward without propagate_down does nothing (the net calls it so under force_backward).
  Tensor x({3}), y;
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  x.SetDiff(7.f);
  layer->Backward({&y}, {false}, {&x});
  EXPECT_EQ(x.diff()[0], 7.f);
}

TEST(ThresholdLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillGaussian(&x, 3);
  testing::ExpectInPlaceMatchesOutOfPlace(
      R"(name: "t" type: "Threshold" threshold_param { threshold: 0.1 })", x,
      /*check_backward=*/false);
}

}  // namespace
}  // namespace dtrain
