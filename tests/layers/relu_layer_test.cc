#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(ReLULayerTest, Forward) {
  auto layer = MakeLayer(R"(name: "relu" type: "ReLU")");
  Tensor x({4}), y;
  const float in[] = {-2.f, -0.5f, 0.f, 1.5f};
  std::copy(in, in + 4, x.mutable_data());
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float want[] = {0.f, 0.f, 0.f, 1.5f};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.data()[i], want[i]);
}

TEST(ReLULayerTest, ForwardLeaky) {
  auto layer = MakeLayer(R"(name: "relu" type: "ReLU" relu_param { negative_slope: 0.1 })");
  Tensor x({4}), y;
  const float in[] = {-2.f, -0.5f, 0.f, 1.5f};
  std::copy(in, in + 4, x.mutable_data());
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float want[] = {-0.2f, -0.05f, 0.f, 1.5f};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.data()[i], want[i]);
}

TEST(ReLULayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "relu" type: "ReLU")");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::GradientCheckOptions options;
  options.kink = 0.f;
  options.kink_range = 0.01f;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(ReLULayerTest, GradientLeaky) {
  auto layer = MakeLayer(R"(name: "relu" type: "ReLU" relu_param { negative_slope: 0.01 })");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 2);
  testing::GradientCheckOptions options;
  options.kink = 0.f;
  options.kink_range = 0.01f;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(ReLULayerTest, InPlaceMatchesOutOfPlace) {
  const char* text = R"(name: "relu" type: "ReLU" relu_param { negative_slope: 0.2 })";
  auto layer = MakeLayer(text);
  auto in_place = MakeLayer(text);
  Tensor x({10}), y, z({10}), dy({10});
  testing::FillGaussian(&x, 3);
  testing::FillGaussian(&dy, 4);
  z.CopyFrom(x);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(in_place->Setup({&z}, {&z}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  ASSERT_TRUE(in_place->Forward({&z}, {&z}, nullptr).ok());
  for (int i = 0; i < 10; ++i) EXPECT_FLOAT_EQ(z.data()[i], y.data()[i]);
  std::copy(dy.data(), dy.data() + 10, y.mutable_diff());
  std::copy(dy.data(), dy.data() + 10, z.mutable_diff());
  layer->Backward({&y}, {true}, {&x});
  in_place->Backward({&z}, {true}, {&z});
  for (int i = 0; i < 10; ++i) EXPECT_FLOAT_EQ(z.diff()[i], x.diff()[i]);
}

}  // namespace
}  // namespace dtrain
