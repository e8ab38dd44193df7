#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillIota;
using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

const char* kReindex = R"(name: "ri" type: "BatchReindex")";

TEST(BatchReindexLayerTest, GathersItemsByIndex) {
  Tensor x({3, 2}), index({4}), y;
  FillIota(&x, 0.f);  // items [0 1] [2 3] [4 5]
  FillValues(&index, {2, 0, 2, 1});
  auto layer = MakeLayer(kReindex);
  ASSERT_TRUE(layer->Setup({&x, &index}, {&y}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{4, 2}));
  ASSERT_TRUE(layer->Forward({&x, &index}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{4, 5, 0, 1, 4, 5, 2, 3}));
}

TEST(BatchReindexLayerTest, AFractionalIndexIsTruncatedAsInCaffe) {
  Tensor x({3, 1, 2}), index({2}), y;
  FillIota(&x, 0.f);
  FillValues(&index, {1.7f, 2.2f});
  auto layer = MakeLayer(kReindex);
  ASSERT_TRUE(layer->Setup({&x, &index}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x, &index}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(Values(y), (std::vector<float>{2, 3, 4, 5}));
}

TEST(BatchReindexLayerTest, BackwardAccumulatesIntoRepeatedItems) {
  Tensor x({3, 2}), index({4}), y;
  FillValues(&index, {2, 0, 2, 1});
  auto layer = MakeLayer(kReindex);
  ASSERT_TRUE(layer->Setup({&x, &index}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x, &index}, {&y}, nullptr).ok());
  float* dy = y.mutable_diff();
  for (int i = 0; i < 8; ++i) dy[i] = static_cast<float>(i);  // rows [0 1] [2 3] [4 5] [6 7]
  x.SetDiff(9.f);
  layer->Backward({&y}, {true, false}, {&x, &index});
  // item 0 <- row 1; item 1 <- row 3; item 2 <- rows 0 and 2.
  EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + 6), (std::vector<float>{2, 3, 6, 7, 4, 6}));
}

TEST(BatchReindexLayerTest, Gradient) {
  Tensor x({4, 3}), index({6}), y;
  testing::FillGaussian(&x, 17);
  FillValues(&index, {3, 3, 0, 1, 0, 3});  // item 2 never picked
  auto layer = MakeLayer(kReindex);
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&x, &index}, {&y}, options);
}

TEST(BatchReindexLayerTest, TheIndicesGetNoGradient) {
  auto layer = MakeLayer(kReindex);
  EXPECT_TRUE(layer->BottomHasGradient(0));
  EXPECT_FALSE(layer->BottomHasGradient(1));
  EXPECT_FALSE(layer->AllowForceBackward(1));
}

Status ForwardStatus(const std::vector<int>& index_shape, const std::vector<float>& indices) {
  Tensor x({3, 2}), index(index_shape), y;
  FillValues(&index, indices);
  auto layer = MakeLayer(kReindex);
  Status s = layer->Setup({&x, &index}, {&y});
  if (!s.ok()) return s;
  return layer->Forward({&x, &index}, {&y}, nullptr);
}

TEST(BatchReindexLayerTest, BadIndicesAreErrors) {
  EXPECT_EQ(ForwardStatus({2, 1}, {0, 1}).message(),
            "layer 'ri' (BatchReindex): the indices (bottom 1) must have exactly 1 axis, got 2 1 "
            "(2)");
  EXPECT_EQ(ForwardStatus({2}, {0, -1}).message(),
            "layer 'ri' (BatchReindex): index -1.000000 at position 1 of bottom 1 is negative");
  EXPECT_EQ(ForwardStatus({2}, {3, 0}).message(),
            "layer 'ri' (BatchReindex): index 3.000000 at position 0 of bottom 1 is not below the "
            "batch size 3");
}

}  // namespace
}  // namespace dtrain
