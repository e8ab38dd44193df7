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

TEST(BNLLLayerTest, ForwardAndBackwardByHand) {
  auto layer = MakeLayer(R"(name: "b" type: "BNLL")");
  std::vector<float> y, dx;
  RunOnes(*layer, {0.f, 1.f, -1.f, 60.f, -60.f}, &y, &dx);
  EXPECT_NEAR(y[0], 0.6931472f, 1e-6);  // ln 2
  EXPECT_NEAR(y[1], 1.3132617f, 1e-6);  // ln(1 + e)
  EXPECT_NEAR(y[2], 0.3132617f, 1e-6);  // ln(1 + 1/e)
  EXPECT_FLOAT_EQ(y[3], 60.f);          // no overflow
  EXPECT_NEAR(y[4], 0.f, 1e-20);
  EXPECT_NEAR(dx[0], 0.5f, 1e-6);  // sigmoid(x)
  EXPECT_NEAR(dx[1], 0.7310586f, 1e-6);
  EXPECT_NEAR(dx[2], 0.2689414f, 1e-6);
  EXPECT_FLOAT_EQ(dx[3], 1.f);  // exp clamped at 50: no inf / inf
  EXPECT_NEAR(dx[4], 0.f, 1e-20);
}

TEST(BNLLLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "b" type: "BNLL")");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 1, 2.f);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(BNLLLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillGaussian(&x, 3, 2.f);
  testing::ExpectInPlaceMatchesOutOfPlace(R"(name: "b" type: "BNLL")", x);
}

}  // namespace
}  // namespace dtrain
