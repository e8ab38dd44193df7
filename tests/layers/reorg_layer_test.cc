#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillIota;
using testing::MakeLayer;
using testing::Values;

// Bottom (1, 8, 2, 2) holding 0..31, stride 2, so C' = 8 / 4 = 2. Without reverse, top element
// i = (c, h, w) of an (8, 2, 2) reading takes the bottom read as (2, 4, 4) at channel c mod 2, row
// 2 h + (c div 2) div 2, column 2 w + (c div 2) mod 2, flat index 16 (c mod 2) + 4 (2 h + (c div
// 2) div 2) + 2 w + (c div 2) mod 2. For c = 0: 0, 2, 8, 10; c = 1: 16, 18, 24, 26; c = 2 (block
// 1, column + 1): 1, 3, 9, 11; c = 3: 17, 19, 25, 27; c = 4 (block 2, row + 1): 4, 6, 12, 14;
// c = 5: 20, 22, 28, 30; c = 6 (block 3): 5, 7, 13, 15; c = 7: 21, 23, 29, 31.
const std::vector<float> kForward = {0, 2, 8,  10, 16, 18, 24, 26, 1, 3, 9,  11, 17, 19, 25, 27,
                                     4, 6, 12, 14, 20, 22, 28, 30, 5, 7, 13, 15, 21, 23, 29, 31};
// With reverse the same map sends bottom element i to top position kForward[i], so top[kForward[i]]
// = i: the inverse permutation. Top channel 0, row 0 reads 0, 8, 1, 9: bottom channels 0 and 2
// (block 0 and block 1 of C' channel 0) interleaved along the row.
const std::vector<float> kReverse = {0, 8,  1, 9,  16, 24, 17, 25, 2, 10, 3, 11, 18, 26, 19, 27,
                                     4, 12, 5, 13, 20, 28, 21, 29, 6, 14, 7, 15, 22, 30, 23, 31};

TEST(ReorgLayerTest, ForwardIsDarknetsReorgNotAPlainSpaceToDepth) {
  auto layer = MakeLayer(R"(name: "reorg" type: "Reorg" reorg_param { stride: 2 })");
  Tensor x({1, 8, 2, 2}), y;
  FillIota(&x, 0.f);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{1, 32, 1, 1}));
  EXPECT_EQ(Values(y), kForward);
}

TEST(ReorgLayerTest, ReverseForwardIsTheInverseMap) {
  auto layer = MakeLayer(R"(name: "reorg" type: "Reorg" reorg_param { stride: 2 reverse: true })");
  Tensor x({1, 8, 2, 2}), y;
  FillIota(&x, 0.f);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{1, 2, 4, 4}));
  EXPECT_EQ(Values(y), kReverse);
}

TEST(ReorgLayerTest, BackwardAppliesTheInversePermutation) {
  // A top diff of 0..31 comes back through the inverse of each forward map.
  for (bool reverse : {false, true}) {
    auto layer = MakeLayer(std::string(R"(name: "reorg" type: "Reorg" reorg_param { stride: 2 )") +
                           (reverse ? "reverse: true }" : "}"));
    Tensor x({1, 8, 2, 2}), y;
    FillIota(&x, 0.f);
    ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
    ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
    for (int i = 0; i < 32; ++i) y.mutable_diff()[i] = static_cast<float>(i);
    layer->Backward({&y}, {true}, {&x});
    EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + 32), reverse ? kForward : kReverse);
  }
}

TEST(ReorgLayerTest, ShapesOfYoloV2sPassthrough) {
  // YOLO v2: 64 x 26 x 26 becomes 256 x 13 x 13.
  auto layer = MakeLayer(R"(name: "reorg" type: "Reorg" reorg_param { stride: 2 })");
  Tensor x({2, 64, 26, 26}), y;
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 256, 13, 13}));
}

TEST(ReorgLayerTest, Gradient) {
  for (bool reverse : {false, true}) {
    auto layer = MakeLayer(std::string(R"(name: "reorg" type: "Reorg" reorg_param { stride: 3 )") +
                           (reverse ? "reverse: true }" : "}"));
    Tensor x({2, 18, 3, 6}), y;
    testing::FillGaussian(&x, 7);
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

TEST(ReorgLayerTest, BadStridesAndShapesAreRefused) {
  struct Case {
    const char* param;
    std::vector<int> shape;
    const char* message;
  };
  const Case cases[] = {
      {"reorg_param { reverse: true }", {1, 4, 2, 2}, "reorg_param.stride is required"},
      {"", {1, 4, 2, 2}, "reorg_param.stride is required"},
      {"reorg_param { stride: 0 }", {1, 4, 2, 2}, "reorg_param.stride must be positive, got 0"},
      {"reorg_param { stride: 2 }",
       {1, 6, 2, 2},
       "the bottom's 6 channels are not a multiple of stride^2 = 4 (1 6 2 2 (24))"},
      {"reorg_param { stride: 2 reverse: true }",
       {1, 2, 2, 2},
       "the bottom's 2 channels are not a multiple of stride^2 = 4 (1 2 2 2 (8))"},
      {"reorg_param { stride: 2 }",
       {1, 4, 3, 2},
       "the bottom's height 3 is not a multiple of reorg_param.stride 2 (1 4 3 2 (24))"},
      {"reorg_param { stride: 2 }",
       {1, 4, 2, 5},
       "the bottom's width 5 is not a multiple of reorg_param.stride 2 (1 4 2 5 (40))"},
      {"reorg_param { stride: 2 }",
       {4, 4},
       "the bottom must have 4 axes (N, C, H, W), got 4 4 (16)"},
  };
  for (const Case& c : cases) {
    auto layer = MakeLayer(std::string(R"(name: "reorg" type: "Reorg" )") + c.param);
    Tensor x(c.shape), y;
    Status s = layer->Setup({&x}, {&y});
    EXPECT_EQ(s.message(), std::string("layer 'reorg' (Reorg): ") + c.message) << c.param;
  }
  auto layer = MakeLayer(R"(name: "reorg" type: "Reorg" reorg_param { stride: 2 })");
  Tensor x({1, 4, 2, 2});
  EXPECT_EQ(layer->Setup({&x}, {&x}).message(), "layer 'reorg' (Reorg): cannot run in place");
}

TEST(ReorgLayerTest, ReverseNeedsNoDivisibleHeight) {
  // Depth to space multiplies H and W, so any H and W do (Intel Caffe's reverse accepts them).
  auto layer = MakeLayer(R"(name: "reorg" type: "Reorg" reorg_param { stride: 2 reverse: true })");
  Tensor x({1, 8, 3, 5}), y;
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{1, 2, 6, 10}));
}

}  // namespace
}  // namespace dtrain
