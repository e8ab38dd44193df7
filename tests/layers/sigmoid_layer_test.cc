#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(SigmoidLayerTest, Forward) {
  auto layer = MakeLayer(R"(name: "sig" type: "Sigmoid")");
  Tensor x({3}), y;
  x.mutable_data()[0] = 0.f;
  x.mutable_data()[1] = std::log(3.f);   // 3 / 4
  x.mutable_data()[2] = -std::log(3.f);  // 1 / 4
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_NEAR(y.data()[0], 0.5f, 1e-6);
  EXPECT_NEAR(y.data()[1], 0.75f, 1e-6);
  EXPECT_NEAR(y.data()[2], 0.25f, 1e-6);
}

TEST(SigmoidLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "sig" type: "Sigmoid")");
  Tensor x({2, 3, 2}), y;
  testing::FillGaussian(&x, 1, 2.f);
  testing::CheckGradients(*layer, {&x}, {&y});
}

}  // namespace
}  // namespace dtrain
