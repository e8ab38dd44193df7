#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillIota;
using testing::MakeLayer;
using testing::Values;

TEST(ConcatLayerTest, ForwardAlongChannels) {
  auto layer = MakeLayer(R"(name: "cat" type: "Concat")");
  Tensor a({2, 1, 2}), b({2, 2, 2}), y;
  FillIota(&a, 0);   // n0: [0 1]          n1: [2 3]
  FillIota(&b, 10);  // n0: [10 11 12 13]  n1: [14 15 16 17]
  ASSERT_TRUE(layer->Setup({&a, &b}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&a, &b}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 3, 2}));
  EXPECT_EQ(Values(y), (std::vector<float>{0, 1, 10, 11, 12, 13, 2, 3, 14, 15, 16, 17}));
}

TEST(ConcatLayerTest, ForwardAlongNumWithLegacyConcatDim) {
  auto layer = MakeLayer(R"(name: "cat" type: "Concat" concat_param { concat_dim: 0 })");
  Tensor a({1, 2}), b({2, 2}), y;
  FillIota(&a, 0);
  FillIota(&b, 10);
  ASSERT_TRUE(layer->Setup({&a, &b}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&a, &b}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{3, 2}));
  EXPECT_EQ(Values(y), (std::vector<float>{0, 1, 10, 11, 12, 13}));
}

TEST(ConcatLayerTest, SingleBottomSharesDataAndDiff) {
  auto layer = MakeLayer(R"(name: "cat" type: "Concat")");
  Tensor a({2, 3}), y;
  ASSERT_TRUE(layer->Setup({&a}, {&y}).ok());
  EXPECT_EQ(y.data(), a.data());
  EXPECT_EQ(y.diff(), a.diff());
}

TEST(ConcatLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "cat" type: "Concat" concat_param { axis: -2 })");
  Tensor a({2, 1, 3}), b({2, 2, 3}), c({2, 3, 3}), y;
  testing::FillGaussian(&a, 1);
  testing::FillGaussian(&b, 2);
  testing::FillGaussian(&c, 3);
  testing::CheckGradients(*layer, {&a, &b, &c}, {&y});
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 6, 3}));
}

TEST(ConcatLayerTest, MismatchedOtherDimsNameLayerAndShapes) {
  auto layer = MakeLayer(R"(name: "cat" type: "Concat")");
  Tensor a({2, 3}), b({3, 3}), y;
  Status s = layer->Setup({&a, &b}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'cat'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 3 (6)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 3 (9)"), std::string::npos) << s.message();
}

TEST(ConcatLayerTest, AxisAndConcatDimTogetherIsAnError) {
  auto layer = MakeLayer(R"(name: "cat" type: "Concat" concat_param { axis: 1 concat_dim: 1 })");
  Tensor a({2, 3}), b({2, 3}), y;
  Status s = layer->Setup({&a, &b}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'cat'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
