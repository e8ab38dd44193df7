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

TEST(ELULayerTest, ForwardAndBackwardByHand) {
  auto layer = MakeLayer(R"(name: "e" type: "ELU" elu_param { alpha: 0.5 })");
  std::vector<float> y, dx;
  RunOnes(*layer, {-1.f, 0.f, 2.f}, &y, &dx);
  EXPECT_NEAR(y[0], 0.5f * (std::exp(-1.f) - 1.f), 1e-6);  // -0.3160603
  EXPECT_FLOAT_EQ(y[1], 0.f);
  EXPECT_FLOAT_EQ(y[2], 2.f);
  EXPECT_NEAR(dx[0], 0.5f * std::exp(-1.f), 1e-6);  // y + alpha
  EXPECT_FLOAT_EQ(dx[1], 0.5f);                     // x = 0 takes the x <= 0 branch, as in Caffe
  EXPECT_FLOAT_EQ(dx[2], 1.f);
}

TEST(ELULayerTest, DefaultAlphaIsOne) {
  auto layer = MakeLayer(R"(name: "e" type: "ELU")");
  std::vector<float> y, dx;
  RunOnes(*layer, {-2.f}, &y, &dx);
  EXPECT_NEAR(y[0], std::exp(-2.f) - 1.f, 1e-6);
}

TEST(ELULayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "e" type: "ELU" elu_param { alpha: 0.5 })");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::GradientCheckOptions options;
  options.kink = 0.f;
  options.kink_range = 0.01f;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(ELULayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillGaussian(&x, 3);
  // A negative alpha makes y > 0 for x < 0, so in place the input must be kept.
  testing::ExpectInPlaceMatchesOutOfPlace(R"(name: "e" type: "ELU" elu_param { alpha: -0.7 })", x);
}

}  // namespace
}  // namespace dtrain
