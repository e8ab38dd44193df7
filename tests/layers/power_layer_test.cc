#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/in_place_check.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Forward on `in`, then backward with a top diff of ones; returns y and dx in *y, *dx.
void RunOnes(Layer& layer, const std::vector<float>& in, std::vector<float>* y,
             std::vector<float>* dx) {
  Tensor x({static_cast<int>(in.size())}), top;
  FillValues(&x, in);
  ASSERT_TRUE(layer.Setup({&x}, {&top}).ok());
  ASSERT_TRUE(layer.Forward({&x}, {&top}, nullptr).ok());
  *y = testing::Values(top);
  top.SetDiff(1.f);
  layer.Backward({&top}, {true}, {&x});
  dx->assign(x.diff(), x.diff() + x.count());
}

TEST(PowerLayerTest, ForwardAndBackwardByHand) {
  // y = (1 + 3x)^2, dy/dx = 6 (1 + 3x)
  auto layer = MakeLayer(R"(name: "p" type: "Power" power_param { power: 2 scale: 3 shift: 1 })");
  std::vector<float> y, dx;
  RunOnes(*layer, {0.f, 1.f, -1.f}, &y, &dx);
  EXPECT_EQ(y, (std::vector<float>{1.f, 16.f, 4.f}));
  EXPECT_EQ(dx, (std::vector<float>{6.f, 24.f, -12.f}));
}

TEST(PowerLayerTest, GeneralPowerByHand) {
  // y = x^0.5, dy/dx = 0.5 / sqrt(x); at 0 the limit (Caffe's y / x is 0 / 0 there).
  auto layer = MakeLayer(R"(name: "p" type: "Power" power_param { power: 0.5 })");
  std::vector<float> y, dx;
  RunOnes(*layer, {4.f, 0.25f, 0.f}, &y, &dx);
  EXPECT_NEAR(y[0], 2.f, 1e-6);
  EXPECT_NEAR(y[1], 0.5f, 1e-6);
  EXPECT_FLOAT_EQ(y[2], 0.f);
  EXPECT_NEAR(dx[0], 0.25f, 1e-6);
  EXPECT_NEAR(dx[1], 1.f, 1e-6);
  EXPECT_TRUE(std::isinf(dx[2]));
  auto cube = MakeLayer(R"(name: "p" type: "Power" power_param { power: 3 scale: 2 shift: -1 })");
  RunOnes(*cube, {0.5f, 1.f}, &y, &dx);  // u = 2x - 1: 0, 1
  EXPECT_EQ(y, (std::vector<float>{0.f, 1.f}));
  EXPECT_EQ(dx, (std::vector<float>{0.f, 6.f}));
}

TEST(PowerLayerTest, SpecialCasesIgnoreTheInput) {
  std::vector<float> y, dx;
  auto zero_power = MakeLayer(R"(name: "p" type: "Power" power_param { power: 0 shift: 5 })");
  RunOnes(*zero_power, {-2.f, 3.f}, &y, &dx);
  EXPECT_EQ(y, (std::vector<float>{1.f, 1.f}));
  EXPECT_EQ(dx, (std::vector<float>{0.f, 0.f}));
  auto zero_scale =
      MakeLayer(R"(name: "p" type: "Power" power_param { power: 3 scale: 0 shift: 2 })");
  RunOnes(*zero_scale, {-2.f, 3.f}, &y, &dx);
  EXPECT_EQ(y, (std::vector<float>{8.f, 8.f}));
  EXPECT_EQ(dx, (std::vector<float>{0.f, 0.f}));
  auto identity = MakeLayer(R"(name: "p" type: "Power")");
  RunOnes(*identity, {-2.f, 3.f}, &y, &dx);
  EXPECT_EQ(y, (std::vector<float>{-2.f, 3.f}));
  EXPECT_EQ(dx, (std::vector<float>{1.f, 1.f}));
}

TEST(PowerLayerTest, Gradient) {
  for (const char* text :
       {R"(name: "p" type: "Power" power_param { power: 2 scale: 0.8 shift: -0.3 })",
        R"(name: "p" type: "Power" power_param { power: 1 scale: -2 shift: 0.3 })",
        R"(name: "p" type: "Power" power_param { power: 0.37 scale: 0.8 shift: 1.5 })",
        R"(name: "p" type: "Power" power_param { power: -1.5 })",
        R"(name: "p" type: "Power" power_param { power: 3 scale: 0 shift: 2 })"}) {
    SCOPED_TRACE(text);
    auto layer = MakeLayer(text);
    Tensor x({2, 3, 2}), y;
    testing::FillUniform(&x, 1, 0.5f, 2.f);
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

TEST(PowerLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillUniform(&x, 3, 0.5f, 2.f);
  testing::ExpectInPlaceMatchesOutOfPlace(
      R"(name: "p" type: "Power" power_param { power: 2.5 scale: 2 shift: 0.1 })", x);
}

}  // namespace
}  // namespace dtrain
