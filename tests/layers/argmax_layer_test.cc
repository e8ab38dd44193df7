#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string ArgMax(const std::string& param) {
  return R"(name: "am" type: "ArgMax" argmax_param { )" + param + " }";
}

// x = [1 3 2 3; 0 -1 5 4]: row 0 has a tie between indices 1 and 3.
struct Result {
  std::vector<int> shape;
  std::vector<float> values;
};
Result Forward(const std::string& prototxt, std::vector<int> shape = {2, 4},
               std::vector<float> values = {1, 3, 2, 3, 0, -1, 5, 4}) {
  Tensor x(shape), y;
  FillValues(&x, values);
  auto layer = MakeLayer(prototxt);
  Status s = layer->Setup({&x}, {&y});
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  return {y.shape(), Values(y)};
}

TEST(ArgMaxLayerTest, DefaultIsTheIndexOfTheMaximumPerItem) {
  Result r = Forward(R"(name: "am" type: "ArgMax")");
  EXPECT_EQ(r.shape, (std::vector<int>{2, 1, 1}));  // N x 1 x top_k
  // A tie goes to the larger index, as Caffe's sort of (value, index) pairs gives.
  EXPECT_EQ(r.values, (std::vector<float>{3, 2}));
}

TEST(ArgMaxLayerTest, TopKIndicesLargestFirst) {
  Result r = Forward(ArgMax("top_k: 2"));
  EXPECT_EQ(r.shape, (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(r.values, (std::vector<float>{3, 1, 2, 3}));
}

TEST(ArgMaxLayerTest, OutMaxValWithoutAxisGivesIndicesThenValues) {
  Result r = Forward(ArgMax("top_k: 2 out_max_val: true"));
  EXPECT_EQ(r.shape, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(r.values, (std::vector<float>{3, 1, 3, 3, 2, 3, 5, 4}));
}

TEST(ArgMaxLayerTest, WithoutAxisOneItemSpansEveryOtherAxis) {
  // 2 x 1 x 2 x 1 x 1: five axes, so the top is padded to five: 2 x 1 x 1 x 1 x 1.
  Result r = Forward(R"(name: "am" type: "ArgMax")", {2, 1, 2, 1, 1}, {0, 7, 9, -3});
  EXPECT_EQ(r.shape, (std::vector<int>{2, 1, 1, 1, 1}));
  EXPECT_EQ(r.values, (std::vector<float>{1, 0}));
}

TEST(ArgMaxLayerTest, AlongAnAxis) {
  Result cols = Forward(ArgMax("axis: 0"));
  EXPECT_EQ(cols.shape, (std::vector<int>{1, 4}));
  EXPECT_EQ(cols.values, (std::vector<float>{0, 0, 1, 1}));
  Result rows = Forward(ArgMax("axis: -1 top_k: 3"));
  EXPECT_EQ(rows.shape, (std::vector<int>{2, 3}));
  EXPECT_EQ(rows.values, (std::vector<float>{3, 1, 2, 2, 3, 0}));
}

TEST(ArgMaxLayerTest, OutMaxValAlongAnAxisGivesTheValuesOnly) {
  Result r = Forward(ArgMax("axis: 1 top_k: 2 out_max_val: true"));
  EXPECT_EQ(r.shape, (std::vector<int>{2, 2}));
  EXPECT_EQ(r.values, (std::vector<float>{3, 3, 5, 4}));
}

TEST(ArgMaxLayerTest, AlongAMiddleAxis) {
  // 2 x 3 x 2, maximum over axis 1 for each (n, w).
  Result r = Forward(ArgMax("axis: 1"), {2, 3, 2}, {1, 6, 5, 2, 3, 4, 0, 0, 9, -1, 8, 2});
  EXPECT_EQ(r.shape, (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(r.values, (std::vector<float>{1, 0, 1, 2}));
}

TEST(ArgMaxLayerTest, HasNoGradient) {
  auto layer = MakeLayer(R"(name: "am" type: "ArgMax")");
  EXPECT_FALSE(layer->HasGradient());
  EXPECT_FALSE(layer->AllowForceBackward(0));
}

Status SetupStatus(const std::string& prototxt) {
  Tensor x({2, 4}), y;
  auto layer = MakeLayer(prototxt);
  return layer->Setup({&x}, {&y});
}

TEST(ArgMaxLayerTest, BadParametersAreErrors) {
  EXPECT_EQ(SetupStatus(ArgMax("top_k: 0")).message(),
            "layer 'am' (ArgMax): argmax_param.top_k must be at least 1");
  EXPECT_EQ(SetupStatus(ArgMax("top_k: 9")).message(),
            "layer 'am' (ArgMax): argmax_param.top_k 9 exceeds the values per item (4) of bottom "
            "2 4 (8)");
  EXPECT_EQ(SetupStatus(ArgMax("axis: 0 top_k: 3")).message(),
            "layer 'am' (ArgMax): argmax_param.top_k 3 exceeds the size of axis 0 of bottom 2 4 "
            "(8)");
  EXPECT_EQ(SetupStatus(ArgMax("axis: 2")).message(),
            "layer 'am' (ArgMax): argmax_param.axis 2 is out of range for bottom of shape 2 4 (8)");
}

}  // namespace
}  // namespace dtrain
