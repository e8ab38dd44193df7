// ShuffleChannel (ShuffleNet's fork layer): the channel transpose by hand, its gradient, and its
// parameter errors.
#include <gtest/gtest.h>

#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

TEST(ShuffleChannelLayerTest, ForwardByHand) {
  auto layer = MakeLayer(R"(name: "s" type: "ShuffleChannel" shuffle_channel_param { group: 2 })");
  // Two items of 6 channels, 2 values each: item n, channel c holds 100 n + 10 c + {0, 1}.
  Tensor x({2, 6, 1, 2}), y;
  std::vector<float> values;
  for (int n = 0; n < 2; ++n) {
    for (int c = 0; c < 6; ++c) {
      for (int v = 0; v < 2; ++v) values.push_back(100.f * n + 10.f * c + v);
    }
  }
  FillValues(&x, values);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), x.shape());
  // Channels as a 2 x 3 matrix [[0 1 2] [3 4 5]], transposed: 0 3 1 4 2 5.
  std::vector<float> expected;
  for (int n = 0; n < 2; ++n) {
    for (int c : {0, 3, 1, 4, 2, 5}) {
      for (int v = 0; v < 2; ++v) expected.push_back(100.f * n + 10.f * c + v);
    }
  }
  EXPECT_EQ(testing::Values(y), expected);
}

TEST(ShuffleChannelLayerTest, GroupOneCopies) {
  auto layer = MakeLayer(R"(name: "s" type: "ShuffleChannel")");
  Tensor x({1, 3, 2}), y;
  FillValues(&x, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(testing::Values(y), testing::Values(x));
}

TEST(ShuffleChannelLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "s" type: "ShuffleChannel" shuffle_channel_param { group: 3 })");
  Tensor x({2, 6, 2, 3}), y;
  testing::FillGaussian(&x, 5);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(ShuffleChannelLayerTest, GroupMustDivideTheChannels) {
  auto layer = MakeLayer(R"(name: "s" type: "ShuffleChannel" shuffle_channel_param { group: 4 })");
  Tensor x({1, 6, 2, 2}), y;
  EXPECT_EQ(layer->Setup({&x}, {&y}).message(),
            "layer 's' (ShuffleChannel): shuffle_channel_param.group (4) must be positive and "
            "divide the channels (6)");
  auto zero = MakeLayer(R"(name: "s" type: "ShuffleChannel" shuffle_channel_param { group: 0 })");
  EXPECT_EQ(zero->Setup({&x}, {&y}).message(),
            "layer 's' (ShuffleChannel): shuffle_channel_param.group (0) must be positive and "
            "divide the channels (6)");
}

}  // namespace
}  // namespace dtrain
