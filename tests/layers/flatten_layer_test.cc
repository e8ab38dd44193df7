// Flatten's top aliases its bottom's data and diff, so its "backward" is the aliasing itself:
// the tests check that a gradient written to the top is the bottom's gradient.
#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(FlattenLayerTest, FlattensEverythingAfterTheFirstAxis) {
  auto layer = MakeLayer(R"(name: "flat" type: "Flatten")");
  Tensor x({2, 3, 4, 5}), y;
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 60}));
}

TEST(FlattenLayerTest, FlattensARange) {
  auto layer = MakeLayer(R"(name: "flat" type: "Flatten" flatten_param { axis: 1 end_axis: -2 })");
  Tensor x({2, 3, 4, 5}), y;
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 12, 5}));
}

TEST(FlattenLayerTest, TopSharesDataAndDiff) {
  auto layer = MakeLayer(R"(name: "flat" type: "Flatten")");
  Tensor x({2, 2, 2}), y;
  for (int i = 0; i < 8; ++i) x.mutable_data()[i] = static_cast<float>(i);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y.data()[i], static_cast<float>(i));
  for (int i = 0; i < 8; ++i) y.mutable_diff()[i] = 3.f * i;
  layer->Backward({&y}, {true}, {&x});
  for (int i = 0; i < 8; ++i) EXPECT_EQ(x.diff()[i], 3.f * i);
}

TEST(FlattenLayerTest, BadAxisIsAnError) {
  auto layer = MakeLayer(R"(name: "flat" type: "Flatten" flatten_param { axis: 4 })");
  Tensor x({2, 3}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'flat'"), std::string::npos) << s.message();
}

TEST(FlattenLayerTest, GradientCheck) {
  auto layer = MakeLayer(R"(name: "flat" type: "Flatten" flatten_param { axis: 1 end_axis: -2 })");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 3);
  testing::CheckGradients(*layer, {&x}, {&y});
}

}  // namespace
}  // namespace dtrain
