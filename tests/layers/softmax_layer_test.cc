#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(SoftmaxLayerTest, ForwardAlongChannels) {
  auto layer = MakeLayer(R"(name: "prob" type: "Softmax")");
  // Two positions (inner = 2): position 0 has scores {0, ln 2, ln 3} -> {1, 2, 3} / 6; position 1
  // has equal scores (large, to exercise the max subtraction) -> 1/3 each.
  Tensor x({1, 3, 2}), y;
  const float in[] = {0.f, 1000.f, std::log(2.f), 1000.f, std::log(3.f), 1000.f};
  std::copy(in, in + 6, x.mutable_data());
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float want[] = {1 / 6.f, 1 / 3.f, 2 / 6.f, 1 / 3.f, 3 / 6.f, 1 / 3.f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(y.data()[i], want[i], 1e-6) << i;
}

TEST(SoftmaxLayerTest, ForwardAlongLastAxis) {
  auto layer = MakeLayer(R"(name: "prob" type: "Softmax" softmax_param { axis: -1 })");
  Tensor x({2, 2}), y;
  const float in[] = {0.f, 0.f, std::log(3.f), 0.f};
  std::copy(in, in + 4, x.mutable_data());
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float want[] = {0.5f, 0.5f, 0.75f, 0.25f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y.data()[i], want[i], 1e-6) << i;
}

TEST(SoftmaxLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "prob" type: "Softmax")");
  Tensor x({2, 4, 2, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(SoftmaxLayerTest, BadAxisIsAnError) {
  auto layer = MakeLayer(R"(name: "prob" type: "Softmax" softmax_param { axis: 2 })");
  Tensor x({2, 4}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'prob'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
