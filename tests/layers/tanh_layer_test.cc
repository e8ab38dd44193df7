#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(TanHLayerTest, Forward) {
  auto layer = MakeLayer(R"(name: "tanh" type: "TanH")");
  Tensor x({3}), y;
  x.mutable_data()[0] = 0.f;
  x.mutable_data()[1] = std::log(2.f);  // (2 - 1/2) / (2 + 1/2) = 0.6
  x.mutable_data()[2] = -std::log(2.f);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_NEAR(y.data()[0], 0.f, 1e-6);
  EXPECT_NEAR(y.data()[1], 0.6f, 1e-6);
  EXPECT_NEAR(y.data()[2], -0.6f, 1e-6);
}

TEST(TanHLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "tanh" type: "TanH")");
  Tensor x({2, 3, 2}), y;
  testing::FillGaussian(&x, 2);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(TanHLayerTest, InPlaceGradientUsesTheTop) {
  auto layer = MakeLayer(R"(name: "tanh" type: "TanH")");
  Tensor x({1}), z({1});
  x.mutable_data()[0] = 0.5f;
  ASSERT_TRUE(layer->Setup({&x}, {&x}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&x}, nullptr).ok());
  x.mutable_diff()[0] = 2.f;
  layer->Backward({&x}, {true}, {&x});
  const float t = std::tanh(0.5f);
  EXPECT_NEAR(x.diff()[0], 2.f * (1 - t * t), 1e-6);
}

}  // namespace
}  // namespace dtrain
