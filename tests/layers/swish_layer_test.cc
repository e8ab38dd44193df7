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

TEST(SwishLayerTest, ForwardAndBackwardByHand) {
  auto layer = MakeLayer(R"(name: "s" type: "Swish")");
  const float ln3 = std::log(3.f);  // sigmoid(ln 3) = 3/4
  std::vector<float> y, dx;
  RunOnes(*layer, {0.f, ln3, -ln3}, &y, &dx);
  EXPECT_FLOAT_EQ(y[0], 0.f);
  EXPECT_NEAR(y[1], 0.75f * ln3, 1e-6);
  EXPECT_NEAR(y[2], -0.25f * ln3, 1e-6);
  // dy/dx = s + x s (1 - s)
  EXPECT_NEAR(dx[0], 0.5f, 1e-6);
  EXPECT_NEAR(dx[1], 0.75f + ln3 * 0.75f * 0.25f, 1e-6);
  EXPECT_NEAR(dx[2], 0.25f - ln3 * 0.25f * 0.75f, 1e-6);
}

TEST(SwishLayerTest, Beta) {
  auto layer = MakeLayer(R"(name: "s" type: "Swish" swish_param { beta: 2 })");
  const float x = std::log(3.f) / 2.f;  // sigmoid(2x) = 3/4
  std::vector<float> y, dx;
  RunOnes(*layer, {x}, &y, &dx);
  EXPECT_NEAR(y[0], 0.75f * x, 1e-6);
  EXPECT_NEAR(dx[0], 0.75f + 2.f * x * 0.75f * 0.25f, 1e-6);
}

TEST(SwishLayerTest, Gradient) {
  for (const char* text :
       {R"(name: "s" type: "Swish")", R"(name: "s" type: "Swish" swish_param { beta: 0.5 })",
        R"(name: "s" type: "Swish" swish_param { beta: 3 })"}) {
    SCOPED_TRACE(text);
    auto layer = MakeLayer(text);
    Tensor x({2, 3, 2}), y;
    testing::FillGaussian(&x, 1, 2.f);
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

TEST(SwishLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillGaussian(&x, 3, 2.f);
  testing::ExpectInPlaceMatchesOutOfPlace(R"(name: "s" type: "Swish" swish_param { beta: 1.5 })",
                                          x);
}

}  // namespace
}  // namespace dtrain
