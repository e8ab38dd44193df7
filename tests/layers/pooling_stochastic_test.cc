// Pooling's STOCHASTIC method: TRAIN draws each window's element with probability proportional
// to its value and routes the gradient to it; TEST outputs sum(x^2) / sum(x) with that
// function's gradient.
#include <gtest/gtest.h>

#include <vector>

#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

const char kStochastic[] =
    "name: 'pool' type: 'Pooling' pooling_param { pool: STOCHASTIC kernel_size: 2 stride: 2 }";

TEST(PoolingStochasticTest, TestPhaseIsTheWeightedAverageByHand) {
  auto layer = MakeLayer(kStochastic, TEST);
  Tensor x({1, 1, 2, 4}), y;
  // Windows [1 2; 3 4] and [0 0; 0 0]: (1 + 4 + 9 + 16) / 10 = 3, and 0 for an all-zero window.
  FillValues(&x, {1, 2, 0, 0, 3, 4, 0, 0});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{1, 1, 1, 2}));
  EXPECT_FLOAT_EQ(y.data()[0], 3.f);
  EXPECT_FLOAT_EQ(y.data()[1], 0.f);
}

TEST(PoolingStochasticTest, TestPhaseGradient) {
  auto layer = MakeLayer(kStochastic, TEST);
  Tensor x({2, 2, 4, 4}), y;
  testing::FillUniform(&x, 7, 0.5f, 2.f);  // positive, away from the sum(x) = 0 corner
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(PoolingStochasticTest, TrainPhaseDrawsInProportionToTheValues) {
  auto layer = MakeLayer(
      "name: 'pool' type: 'Pooling' pooling_param { pool: STOCHASTIC kernel_h: 1 kernel_w: 4 "
      "stride: 4 }");
  // One window of values 0, 1, 2, 5 (sum 8): drawn with probabilities 0, 1/8, 2/8, 5/8.
  Tensor x({1, 1, 1, 4}), y;
  FillValues(&x, {0, 1, 2, 5});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  std::vector<int> counts(6, 0);
  const int draws = 8000;
  for (int i = 0; i < draws; ++i) {
    ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
    ++counts[static_cast<int>(y.data()[0])];
  }
  EXPECT_EQ(counts[0], 0);
  // Binomial standard deviations are at most sqrt(8000 / 4) = 45 draws; allow 4 of them.
  EXPECT_NEAR(counts[1], draws / 8, 180);
  EXPECT_NEAR(counts[2], draws * 2 / 8, 180);
  EXPECT_NEAR(counts[5], draws * 5 / 8, 180);
}

TEST(PoolingStochasticTest, TrainPhaseGradientGoesToTheDrawnElement) {
  auto layer = MakeLayer(kStochastic);
  Tensor x({1, 2, 4, 4}), y;
  testing::FillUniform(&x, 3, 0.f, 1.f);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  for (int i = 0; i < y.count(); ++i) y.mutable_diff()[i] = 10.f + i;
  layer->Backward({&y}, {true}, {&x});
  // Every top value is one of its window's bottom values, and exactly that bottom element gets
  // the window's gradient; the others get none.
  int routed = 0;
  for (int c = 0; c < 2; ++c) {
    for (int oh = 0; oh < 2; ++oh) {
      for (int ow = 0; ow < 2; ++ow) {
        const int o = (c * 2 + oh) * 2 + ow;
        int hits = 0;
        for (int dh = 0; dh < 2; ++dh) {
          for (int dw = 0; dw < 2; ++dw) {
            const int i = (c * 4 + oh * 2 + dh) * 4 + ow * 2 + dw;
            if (x.diff()[i] == 0.f) continue;
            ++hits;
            EXPECT_EQ(x.diff()[i], 10.f + o);
            EXPECT_EQ(x.data()[i], y.data()[o]);
          }
        }
        EXPECT_EQ(hits, 1) << "window " << o;
        routed += hits;
      }
    }
  }
  EXPECT_EQ(routed, 8);
}

TEST(PoolingStochasticTest, TheDrawsFollowTheSeed) {
  Tensor x({1, 3, 6, 6}), a, b, c;
  testing::FillUniform(&x, 9, 0.f, 1.f);
  auto first = MakeLayer(kStochastic, TRAIN, 11);
  auto again = MakeLayer(kStochastic, TRAIN, 11);
  auto other = MakeLayer(kStochastic, TRAIN, 12);
  ASSERT_TRUE(first->Setup({&x}, {&a}).ok());
  ASSERT_TRUE(again->Setup({&x}, {&b}).ok());
  ASSERT_TRUE(other->Setup({&x}, {&c}).ok());
  ASSERT_TRUE(first->Forward({&x}, {&a}, nullptr).ok());
  ASSERT_TRUE(again->Forward({&x}, {&b}, nullptr).ok());
  ASSERT_TRUE(other->Forward({&x}, {&c}, nullptr).ok());
  EXPECT_EQ(testing::Values(a), testing::Values(b));
  EXPECT_NE(testing::Values(a), testing::Values(c));
}

}  // namespace
}  // namespace dtrain
