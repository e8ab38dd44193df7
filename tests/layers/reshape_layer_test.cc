// Reshape's top aliases its bottom's data and diff, so its "backward" is the aliasing itself:
// the tests check that a gradient written to the top is the bottom's gradient.
#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

std::vector<int> TopShape(const std::string& reshape_param, const std::vector<int>& bottom) {
  auto layer = MakeLayer(R"(name: "r" type: "Reshape" reshape_param { )" + reshape_param + " }");
  Tensor x(bottom), y;
  Status s = layer->Setup({&x}, {&y});
  EXPECT_TRUE(s.ok()) << s.message();
  return y.shape();
}

TEST(ReshapeLayerTest, CopiesZerosAndInfersMinusOne) {
  EXPECT_EQ(TopShape("shape { dim: 0 dim: -1 }", {2, 3, 4}), (std::vector<int>{2, 12}));
  EXPECT_EQ(TopShape("shape { dim: -1 }", {2, 3, 4}), (std::vector<int>{24}));
  EXPECT_EQ(TopShape("shape { dim: 0 dim: 2 dim: -1 dim: 0 }", {6, 2, 3, 5}),
            (std::vector<int>{6, 2, 3, 5}));
  EXPECT_EQ(TopShape("shape { dim: 4 dim: 6 }", {2, 3, 4}), (std::vector<int>{4, 6}));
}

TEST(ReshapeLayerTest, AxisAndNumAxesSelectTheReplacedRange) {
  // Insert a 1 after the first axis.
  EXPECT_EQ(TopShape("axis: 1 num_axes: 0 shape { dim: 1 }", {2, 3, 4}),
            (std::vector<int>{2, 1, 3, 4}));
  // Append a 1 at the end.
  EXPECT_EQ(TopShape("axis: -1 num_axes: 0 shape { dim: 1 }", {2, 3, 4}),
            (std::vector<int>{2, 3, 4, 1}));
  // Replace axis 1 only.
  EXPECT_EQ(TopShape("axis: 1 num_axes: 1 shape { dim: 3 dim: 1 }", {2, 3, 4}),
            (std::vector<int>{2, 3, 1, 4}));
  // Merge the last two axes.
  EXPECT_EQ(TopShape("axis: -3 shape { dim: -1 }", {2, 3, 4}), (std::vector<int>{2, 12}));
}

TEST(ReshapeLayerTest, TopSharesDataAndDiff) {
  auto layer = MakeLayer(R"(name: "r" type: "Reshape" reshape_param { shape { dim: 4 dim: 2 } })");
  Tensor x({2, 2, 2}), y;
  for (int i = 0; i < 8; ++i) x.mutable_data()[i] = static_cast<float>(i);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y.data()[i], static_cast<float>(i));
  for (int i = 0; i < 8; ++i) y.mutable_diff()[i] = -1.f * i;
  layer->Backward({&y}, {true}, {&x});
  for (int i = 0; i < 8; ++i) EXPECT_EQ(x.diff()[i], -1.f * i);
}

TEST(ReshapeLayerTest, CountMismatchIsAnErrorNamingBothShapes) {
  auto layer = MakeLayer(R"(name: "r" type: "Reshape" reshape_param { shape { dim: 5 dim: 5 } })");
  Tensor x({2, 3, 4}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'r'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("5 5 (25)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 3 4 (24)"), std::string::npos) << s.message();
}

TEST(ReshapeLayerTest, UninferableDimIsAnError) {
  auto layer = MakeLayer(R"(name: "r" type: "Reshape" reshape_param { shape { dim: 5 dim: -1 } })");
  Tensor x({2, 3, 4}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'r'"), std::string::npos) << s.message();
}

TEST(ReshapeLayerTest, TwoMinusOnesIsAnError) {
  auto layer =
      MakeLayer(R"(name: "r" type: "Reshape" reshape_param { shape { dim: -1 dim: -1 } })");
  Tensor x({2, 3}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'r'"), std::string::npos) << s.message();
}

TEST(ReshapeLayerTest, GradientCheck) {
  auto layer =
      MakeLayer(R"(name: "r" type: "Reshape" reshape_param { shape { dim: 0 dim: -1 dim: 2 } })");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 3);
  testing::CheckGradients(*layer, {&x}, {&y});
}

}  // namespace
}  // namespace dtrain
