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

const char* kClip = R"(name: "c" type: "Clip" clip_param { min: -1 max: 2 })";

TEST(ClipLayerTest, ForwardAndBackwardByHand) {
  auto layer = MakeLayer(kClip);
  std::vector<float> y, dx;
  RunOnes(*layer, {-3.f, -1.f, 0.5f, 2.f, 5.f}, &y, &dx);
  EXPECT_EQ(y, (std::vector<float>{-1.f, -1.f, 0.5f, 2.f, 2.f}));
  // Caffe's gradient passes at the boundaries themselves (min <= x <= max).
  EXPECT_EQ(dx, (std::vector<float>{0.f, 1.f, 1.f, 1.f, 0.f}));
}

TEST(ClipLayerTest, Gradient) {
  auto layer = MakeLayer(kClip);
  Tensor x({10}), y;
  // Inside and outside the range, each farther than the step from a boundary.
  FillValues(&x, {-3.f, -1.6f, -1.1f, -0.9f, 0.f, 0.7f, 1.5f, 1.9f, 2.1f, 4.f});
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(ClipLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({12});
  testing::FillGaussian(&x, 3, 2.f);
  testing::ExpectInPlaceMatchesOutOfPlace(kClip, x);
}

TEST(ClipLayerTest, BadParametersAreErrors) {
  Tensor x({3}), y;
  auto missing = MakeLayer(R"(name: "c" type: "Clip")");
  Status s = missing->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("clip_param { min: ... max: ... } is required"), std::string::npos)
      << s.message();
  auto reversed = MakeLayer(R"(name: "c" type: "Clip" clip_param { min: 1 max: -1 })");
  s = reversed->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is greater than max"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
