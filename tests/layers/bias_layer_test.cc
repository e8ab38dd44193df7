#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

TEST(BiasLayerTest, ForwardLearnedPerChannel) {
  auto layer = MakeLayer(R"(name: "bias" type: "Bias")");
  Tensor x({2, 3}), y;
  FillValues(&x, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 1u);
  EXPECT_EQ(Values(*layer->blobs()[0]), (std::vector<float>{0, 0, 0}));
  FillValues(layer->blobs()[0].get(), {10, 20, 30});
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(BiasLayerTest, ForwardBiasFromSecondBottom) {
  auto layer = MakeLayer(R"(name: "bias" type: "Bias" bias_param { axis: 0 })");
  Tensor x({2, 2}), b({2}), y;
  FillValues(&x, {1, 2, 3, 4});
  FillValues(&b, {-1, 1});
  ASSERT_TRUE(layer->Setup({&x, &b}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x, &b}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{0, 1, 4, 5}));
}

TEST(BiasLayerTest, GradientLearned) {
  auto layer = MakeLayer(R"(name: "bias" type: "Bias"
                            bias_param { num_axes: -1 filler { type: "gaussian" } })");
  Tensor x({2, 3, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::CheckGradients(*layer, {&x}, {&y});
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{3, 2}));
}

TEST(BiasLayerTest, GradientTwoBottoms) {
  auto layer = MakeLayer(R"(name: "bias" type: "Bias" bias_param { axis: -1 })");
  Tensor x({2, 3, 2}), b({2}), y;
  testing::FillGaussian(&x, 1);
  testing::FillGaussian(&b, 2);
  testing::CheckGradients(*layer, {&x, &b}, {&y});
}

TEST(BiasLayerTest, MismatchedBiasIsAnErrorNamingBothShapes) {
  auto layer = MakeLayer(R"(name: "bias" type: "Bias")");
  Tensor x({2, 3}), b({2}), y;
  Status s = layer->Setup({&x, &b}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'bias'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 3 (6)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 (2)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
