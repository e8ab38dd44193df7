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

TEST(ExpLayerTest, ForwardAndBackwardByHand) {
  // y = 2 ^ (1 + 3x)
  auto layer = MakeLayer(R"(name: "e" type: "Exp" exp_param { base: 2 scale: 3 shift: 1 })");
  std::vector<float> y, dx;
  RunOnes(*layer, {0.f, 1.f, -1.f}, &y, &dx);
  EXPECT_NEAR(y[0], 2.f, 1e-5);
  EXPECT_NEAR(y[1], 16.f, 1e-4);
  EXPECT_NEAR(y[2], 0.25f, 1e-6);
  const float ln2 = std::log(2.f);
  EXPECT_NEAR(dx[0], 3.f * ln2 * 2.f, 1e-5);
  EXPECT_NEAR(dx[1], 3.f * ln2 * 16.f, 1e-4);
  EXPECT_NEAR(dx[2], 3.f * ln2 * 0.25f, 1e-6);
}

TEST(ExpLayerTest, DefaultIsNaturalExp) {
  auto layer = MakeLayer(R"(name: "e" type: "Exp")");
  std::vector<float> y, dx;
  RunOnes(*layer, {1.f, 0.f}, &y, &dx);
  EXPECT_NEAR(y[0], 2.7182818f, 1e-6);
  EXPECT_FLOAT_EQ(y[1], 1.f);
  EXPECT_NEAR(dx[0], 2.7182818f, 1e-6);
}

TEST(ExpLayerTest, Gradient) {
  for (const char* text : {R"(name: "e" type: "Exp")",
                           R"(name: "e" type: "Exp" exp_param { base: 2 scale: 0.5 shift: -1 })",
                           R"(name: "e" type: "Exp" exp_param { shift: 0.5 scale: -0.7 })"}) {
    SCOPED_TRACE(text);
    auto layer = MakeLayer(text);
    Tensor x({2, 3, 2}), y;
    testing::FillGaussian(&x, 1);
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

TEST(ExpLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillGaussian(&x, 3);
  testing::ExpectInPlaceMatchesOutOfPlace(
      R"(name: "e" type: "Exp" exp_param { base: 3 scale: 0.5 shift: 0.2 })", x);
}

TEST(ExpLayerTest, NonPositiveBaseIsAnError) {
  Tensor x({3}), y;
  auto layer = MakeLayer(R"(name: "e" type: "Exp" exp_param { base: -2 })");
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exp_param.base must be -1 (e) or positive"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace dtrain
