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

const char* kFilter = R"(name: "f" type: "Filter")";

// Two blobs of 4 items and a selector keeping items 1 and 3.
struct FilterInputs {
  Tensor x{std::vector<int>{4, 2}};
  Tensor z{std::vector<int>{4}};
  Tensor selector{std::vector<int>{4, 1}};
  Tensor x_top, z_top;
  FilterInputs() {
    FillIota(&x, 0.f);  // item i: [2i, 2i + 1]
    FillValues(&z, {10, 11, 12, 13});
    FillValues(&selector, {0, 1, 0, -0.5f});  // any non-zero value selects
  }
  TensorVec bottoms() { return {&x, &z, &selector}; }
  TensorVec tops() { return {&x_top, &z_top}; }
};

TEST(FilterLayerTest, KeepsTheSelectedItemsOfEveryBottom) {
  FilterInputs in;
  auto layer = MakeLayer(kFilter);
  ASSERT_TRUE(layer->Setup(in.bottoms(), in.tops()).ok());
  EXPECT_EQ(in.x_top.shape(), (std::vector<int>{4, 2}));  // all items until the first Forward
  ASSERT_TRUE(layer->Forward(in.bottoms(), in.tops(), nullptr).ok());
  EXPECT_EQ(in.x_top.shape(), (std::vector<int>{2, 2}));
  EXPECT_EQ(Values(in.x_top), (std::vector<float>{2, 3, 6, 7}));
  EXPECT_EQ(in.z_top.shape(), (std::vector<int>{2}));
  EXPECT_EQ(Values(in.z_top), (std::vector<float>{11, 13}));
}

TEST(FilterLayerTest, TopsFollowTheSelectorEveryForward) {
  FilterInputs in;
  auto layer = MakeLayer(kFilter);
  ASSERT_TRUE(layer->Setup(in.bottoms(), in.tops()).ok());
  FillValues(&in.selector, {1, 1, 1, 0});
  ASSERT_TRUE(layer->Forward(in.bottoms(), in.tops(), nullptr).ok());
  EXPECT_EQ(Values(in.z_top), (std::vector<float>{10, 11, 12}));
  FillValues(&in.selector, {0, 0, 0, 0});
  ASSERT_TRUE(layer->Forward(in.bottoms(), in.tops(), nullptr).ok());
  EXPECT_EQ(in.x_top.shape(), (std::vector<int>{0, 2}));
  EXPECT_EQ(in.z_top.count(), 0);
}

TEST(FilterLayerTest, BackwardFillsTheSelectedItemsAndZeroesTheRest) {
  FilterInputs in;
  auto layer = MakeLayer(kFilter);
  ASSERT_TRUE(layer->Setup(in.bottoms(), in.tops()).ok());
  ASSERT_TRUE(layer->Forward(in.bottoms(), in.tops(), nullptr).ok());
  float* dx_top = in.x_top.mutable_diff();
  dx_top[0] = 1, dx_top[1] = 2, dx_top[2] = 3, dx_top[3] = 4;
  in.z_top.mutable_diff()[0] = 5, in.z_top.mutable_diff()[1] = 6;
  in.x.SetDiff(9.f);
  in.z.SetDiff(9.f);
  in.selector.SetDiff(9.f);
  layer->Backward(in.tops(), {true, true, false}, in.bottoms());
  EXPECT_EQ(std::vector<float>(in.x.diff(), in.x.diff() + 8),
            (std::vector<float>{0, 0, 1, 2, 0, 0, 3, 4}));
  EXPECT_EQ(std::vector<float>(in.z.diff(), in.z.diff() + 4), (std::vector<float>{0, 5, 0, 6}));
  EXPECT_EQ(in.selector.diff()[0], 9.f);  // untouched
}

TEST(FilterLayerTest, Gradient) {
  Tensor x({5, 2, 3}), selector({5}), top;
  testing::FillGaussian(&x, 13);
  FillValues(&selector, {1, 0, 0, 1, 1});
  auto layer = MakeLayer(kFilter);
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&x, &selector}, {&top}, options);
}

TEST(FilterLayerTest, TheSelectorGetsNoGradient) {
  FilterInputs in;
  auto layer = MakeLayer(kFilter);
  ASSERT_TRUE(layer->Setup(in.bottoms(), in.tops()).ok());
  EXPECT_TRUE(layer->HasGradient());
  EXPECT_TRUE(layer->BottomHasGradient(0));
  EXPECT_TRUE(layer->BottomHasGradient(1));
  EXPECT_FALSE(layer->BottomHasGradient(2));
  EXPECT_FALSE(layer->AllowForceBackward(2));
}

TEST(FilterLayerTest, NeedsOneTopPerFilteredBottom) {
  FilterInputs in;
  auto layer = MakeLayer(kFilter);
  EXPECT_EQ(layer->Setup(in.bottoms(), {&in.x_top}).message(),
            "layer 'f' (Filter): needs one top per filtered bottom (bottoms but the last, the "
            "selector): 2 top(s) for 3 bottoms, got 1");
}

TEST(FilterLayerTest, SelectorWithMoreThanOneValuePerItemIsAnError) {
  Tensor x({4, 2}), selector({4, 2}), top;
  auto layer = MakeLayer(kFilter);
  EXPECT_EQ(layer->Setup({&x, &selector}, {&top}).message(),
            "layer 'f' (Filter): the selector (last bottom) must have size 1 on every axis but "
            "the first, got 4 2 (8)");
}

TEST(FilterLayerTest, BottomWithAnotherNumberOfItemsIsAnError) {
  Tensor x({3, 2}), selector({4, 1, 1}), top;
  auto layer = MakeLayer(kFilter);
  EXPECT_EQ(layer->Setup({&x, &selector}, {&top}).message(),
            "layer 'f' (Filter): bottom 0 3 2 (6) needs as many items (axis 0) as the selector 4 "
            "1 1 (4)");
}

}  // namespace
}  // namespace dtrain
