// SPP: the pyramid's bins by hand, a fixed top size whatever the image size, the gradient, and
// the errors of too small an image.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

std::string Spp(int height, const std::string& pool = "MAX") {
  return "name: 'spp' type: 'SPP' spp_param { pyramid_height: " + std::to_string(height) +
         " pool: " + pool + " }";
}

TEST(SPPLayerTest, ForwardByHand) {
  auto layer = MakeLayer(Spp(2));
  Tensor x({1, 1, 4, 4}), y;
  std::vector<float> values;
  for (int i = 0; i < 16; ++i) values.push_back(static_cast<float>(i));
  FillValues(&x, values);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  // Level 0: the maximum of all, 15. Level 1: the maxima of the four 2x2 quarters.
  EXPECT_EQ(y.shape(), (std::vector<int>{1, 5}));
  EXPECT_EQ(testing::Values(y), (std::vector<float>{15, 5, 7, 13, 15}));

  auto average = MakeLayer(Spp(2, "AVE"));
  ASSERT_TRUE(average->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(average->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(testing::Values(y), (std::vector<float>{7.5f, 2.5f, 4.5f, 10.5f, 12.5f}));
}

TEST(SPPLayerTest, OneLevelKeepsThePoolingShape) {
  auto layer = MakeLayer(Spp(1));
  Tensor x({2, 3, 5, 4}), y;
  testing::FillGaussian(&x, 1);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 3, 1, 1}));
}

TEST(SPPLayerTest, TheTopSizeDoesNotDependOnTheImageSize) {
  auto layer = MakeLayer(Spp(3));
  Tensor small({2, 2, 6, 7}), large({2, 2, 13, 9}), y;
  testing::FillGaussian(&small, 1);
  testing::FillGaussian(&large, 2);
  ASSERT_TRUE(layer->Setup({&small}, {&y}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 2 * (1 + 4 + 16)}));
  ASSERT_TRUE(layer->Forward({&large}, {&y}, nullptr).ok());  // rebuilds its levels
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 2 * (1 + 4 + 16)}));
}

TEST(SPPLayerTest, GradientMax) {
  auto layer = MakeLayer(Spp(3));  // 6 x 7: every level's pad stays below its kernel
  Tensor x({2, 2, 6, 7}), y;
  // Distinct values 0.1 apart in scrambled order, so that no window's maximum is within the
  // checker's step of another value.
  std::vector<float> values;
  for (int i = 0; i < 168; ++i) values.push_back(0.1f * static_cast<float>((i * 37) % 168));
  FillValues(&x, values);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(SPPLayerTest, GradientAverage) {
  auto layer = MakeLayer(Spp(2, "AVE"));
  Tensor x({2, 2, 5, 6}), y;
  testing::FillGaussian(&x, 4);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(SPPLayerTest, ErrorsNameTheLevel) {
  Tensor x({1, 1, 2, 2}), y;
  auto zero = MakeLayer(Spp(0));
  EXPECT_EQ(zero->Setup({&x}, {&y}).message(),
            "layer 'spp' (SPP): spp_param.pyramid_height must be at least 1");
  // 4x4 bins over 2 pixels: kernel 1, pad (4 - 2 + 1) / 2 = 1, not below the kernel.
  auto deep = MakeLayer(Spp(3));
  const std::string message = deep->Setup({&x}, {&y}).message();
  EXPECT_EQ(message.rfind("layer 'spp' (SPP): pyramid level 2 (4x4 bins) on bottom 1 1 2 2 (4): "
                          "layer 'spp/level2' (Pooling): ",
                          0),
            0u)
      << message;
}

}  // namespace
}  // namespace dtrain
