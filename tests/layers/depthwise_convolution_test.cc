// The forks' depthwise convolution types (ConvolutionDepthwise, DepthwiseConvolution) are
// Convolution with one group per input channel. In the ConvolutionLayerTest suite, so ctest's
// reference rerun covers them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

std::string Depthwise(const std::string& type, const std::string& extra = "") {
  return "name: 'dw' type: '" + type +
         "' convolution_param { num_output: 4 kernel_size: 3 pad: 1 " + extra +
         " weight_filler { type: 'gaussian' std: 1 } bias_filler { type: 'gaussian' } }";
}

TEST(ConvolutionLayerTest, DepthwiseTypesAreOneGroupPerChannel) {
  Tensor x({2, 4, 5, 5});
  testing::FillGaussian(&x, 3);
  Tensor grouped_top;
  auto grouped = MakeLayer(Depthwise("Convolution", "group: 4"));
  ASSERT_TRUE(grouped->Setup({&x}, {&grouped_top}).ok());
  ASSERT_TRUE(grouped->Forward({&x}, {&grouped_top}, nullptr).ok());
  for (const std::string type : {"ConvolutionDepthwise", "DepthwiseConvolution"}) {
    for (const std::string group : {"", "group: 4"}) {
      SCOPED_TRACE(type + " " + group);
      auto layer = MakeLayer(Depthwise(type, group));
      Tensor top;
      ASSERT_TRUE(layer->Setup({&x}, {&top}).ok());
      // Same seed and name, so the same fillers: one 3x3 filter per channel.
      ASSERT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{4, 1, 3, 3}));
      ASSERT_TRUE(layer->Forward({&x}, {&top}, nullptr).ok());
      EXPECT_EQ(testing::Values(top), testing::Values(grouped_top));
    }
  }
}

TEST(ConvolutionLayerTest, DepthwiseGradient) {
  auto layer = MakeLayer(Depthwise("ConvolutionDepthwise"));
  Tensor x({2, 4, 4, 4}), top;
  testing::FillGaussian(&x, 5);
  testing::CheckGradients(*layer, {&x}, {&top});
}

TEST(ConvolutionLayerTest, DepthwiseWithAnotherGroupIsAnError) {
  auto layer = MakeLayer(Depthwise("ConvolutionDepthwise", "group: 2"));
  Tensor x({1, 4, 5, 5}), top;
  EXPECT_EQ(layer->Setup({&x}, {&top}).message(),
            "layer 'dw' (ConvolutionDepthwise): type ConvolutionDepthwise has one group per input "
            "channel (4), but group is 2");
}

}  // namespace
}  // namespace dtrain
