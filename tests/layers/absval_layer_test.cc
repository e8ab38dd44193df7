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

TEST(AbsValLayerTest, ForwardAndBackwardByHand) {
  auto layer = MakeLayer(R"(name: "abs" type: "AbsVal")");
  std::vector<float> y, dx;
  RunOnes(*layer, {-2.f, -0.5f, 0.f, 1.5f}, &y, &dx);
  EXPECT_EQ(y, (std::vector<float>{2.f, 0.5f, 0.f, 1.5f}));
  EXPECT_EQ(dx, (std::vector<float>{-1.f, -1.f, 0.f, 1.f}));  // sign(0) = 0, as in Caffe
}

TEST(AbsValLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "abs" type: "AbsVal")");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::GradientCheckOptions options;
  options.kink = 0.f;
  options.kink_range = 0.01f;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(AbsValLayerTest, InPlaceIsAnError) {
  auto layer = MakeLayer(R"(name: "abs" type: "AbsVal")");
  Tensor x({3});
  Status s = layer->Setup({&x}, {&x});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'abs' (AbsVal): does not run in place"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace dtrain
