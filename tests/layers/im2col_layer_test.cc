// Im2col: the window copies by hand, shapes in the fields' several forms, the gradient (col2im)
// and its errors.
#include <gtest/gtest.h>

#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

TEST(Im2colLayerTest, ForwardByHand) {
  // One 3x3 image 1..9, 2x2 windows, stride 1: 4 positions, each a column of 4 taps.
  auto layer = MakeLayer("name: 'i' type: 'Im2col' convolution_param { kernel_size: 2 }");
  Tensor x({1, 1, 3, 3}), y;
  FillValues(&x, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{1, 4, 2, 2}));
  // Row r = tap (kh, kw) of the window; column = window position (oh, ow).
  EXPECT_EQ(testing::Values(y), (std::vector<float>{1, 2, 4, 5,     // tap (0, 0)
                                                    2, 3, 5, 6,     // tap (0, 1)
                                                    4, 5, 7, 8,     // tap (1, 0)
                                                    5, 6, 8, 9}));  // tap (1, 1)
}

TEST(Im2colLayerTest, PaddingReadsZeroAndShapesFollowConvolution) {
  auto layer = MakeLayer(
      "name: 'i' type: 'Im2col' convolution_param { kernel_h: 1 kernel_w: 2 pad_h: 0 pad_w: 1 "
      "stride: 2 }");
  Tensor x({2, 1, 1, 3}), y;
  FillValues(&x, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  // Width (3 + 2 - 2) / 2 + 1 = 2 positions, starting at -1 and 1.
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 2, 1, 2}));
  EXPECT_EQ(testing::Values(y), (std::vector<float>{0, 2, 1, 3, 0, 5, 4, 6}));
}

TEST(Im2colLayerTest, Gradient) {
  auto layer = MakeLayer(
      "name: 'i' type: 'Im2col' convolution_param { kernel_size: 3 pad: 1 stride: 2 "
      "dilation: 1 }");
  Tensor x({2, 3, 5, 4}), y;
  testing::FillGaussian(&x, 2);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(Im2colLayerTest, GradientDilated) {
  auto layer =
      MakeLayer("name: 'i' type: 'Im2col' convolution_param { kernel_size: 2 dilation: 2 }");
  Tensor x({1, 2, 5, 5}), y;
  testing::FillGaussian(&x, 4);
  testing::CheckGradients(*layer, {&x}, {&y});
}

TEST(Im2colLayerTest, ErrorsNameTheField) {
  Tensor x({1, 1, 3, 3}), y;
  auto no_kernel = MakeLayer("name: 'i' type: 'Im2col'");
  EXPECT_EQ(no_kernel->Setup({&x}, {&y}).message(),
            "layer 'i' (Im2col): kernel_size (or kernel_h/kernel_w) is required");
  auto large = MakeLayer("name: 'i' type: 'Im2col' convolution_param { kernel_size: 4 }");
  EXPECT_EQ(large->Setup({&x}, {&y}).message(),
            "layer 'i' (Im2col): the dilated kernel 4x4 is larger than the padded input of bottom "
            "shape 1 1 3 3 (9)");
}

}  // namespace
}  // namespace dtrain
