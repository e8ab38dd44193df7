#include "layers/deconvolution_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::CheckGradients;
using testing::FillGaussian;
using testing::FillValues;
using testing::MakeLayer;
using testing::ParseLayerParameter;
using testing::Values;

LayerParameter Param(const std::string& type, const std::string& conv_fields) {
  const std::string text = "name: 'up' type: '" + type + "' convolution_param { " + conv_fields +
                           " weight_filler { type: 'gaussian' std: 0.5 } "
                           "bias_filler { type: 'gaussian' std: 0.5 } }";
  return ParseLayerParameter(text);
}

LayerParameter DeconvParam(const std::string& fields) { return Param("Deconvolution", fields); }

TEST(DeconvolutionLayerTest, StrideEqualsKernelTilesTheKernel) {
  // Each input pixel stamps x * w into its own 2x2 block of the 4x4 output.
  auto layer = MakeLayer(DeconvParam("num_output: 1 kernel_size: 2 stride: 2 bias_term: false"));
  Tensor bottom({1, 1, 2, 2}), top;
  FillValues(&bottom, {1, 2, 3, 4});
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  FillValues(layer->blobs()[0].get(), {1, 2, 3, 4});
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 4, 4}));
  EXPECT_EQ(Values(top), (std::vector<float>{1, 2, 2, 4,  //
                                             3, 4, 6, 8,  //
                                             3, 6, 4, 8,  //
                                             9, 12, 12, 16}));
}

TEST(DeconvolutionLayerTest, OverlappingWindowsAddUp) {
  // stride 1, 2x2 ones kernel over a 2x2 ones input: a 3x3 output counting the overlaps, + bias.
  auto layer = MakeLayer(DeconvParam("num_output: 1 kernel_size: 2"));
  Tensor bottom({1, 1, 2, 2}), top;
  FillValues(&bottom, {1, 1, 1, 1});
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  FillValues(layer->blobs()[0].get(), {1, 1, 1, 1});
  FillValues(layer->blobs()[1].get(), {0.5f});
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 3, 3}));
  EXPECT_EQ(Values(top), (std::vector<float>{1.5, 2.5, 1.5, 2.5, 4.5, 2.5, 1.5, 2.5, 1.5}));
}

TEST(DeconvolutionLayerTest, CaffeShapes) {
  // Weights (C_in, C_out / group, kh, kw); out = stride * (in - 1) + dilated kernel - 2 * pad.
  auto layer =
      MakeLayer(DeconvParam("num_output: 6 kernel_size: 3 stride: 2 pad: 1 dilation: 2 group: 2"));
  Tensor bottom({2, 4, 3, 5}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{4, 3, 3, 3}));
  EXPECT_EQ(layer->blobs()[1]->shape(), (std::vector<int>{6}));
  // 2 * (3 - 1) + 5 - 2 = 7; 2 * (5 - 1) + 5 - 2 = 11.
  EXPECT_EQ(top.shape(), (std::vector<int>{2, 6, 7, 11}));
}

TEST(DeconvolutionLayerTest, IsTheTransposeOfConvolution) {
  // With the same weights: <conv(x), y> == <x, deconv(y)>.
  const std::string fields =
      "kernel_size: 3 stride: 2 pad: 1 dilation: 2 group: 2 bias_term: false ";
  auto conv = MakeLayer(Param("Convolution", "num_output: 4 " + fields));
  auto deconv = MakeLayer(DeconvParam("num_output: 2 " + fields));
  Tensor x({2, 2, 7, 5}), cx, y, dy;
  FillGaussian(&x, 1);
  ASSERT_TRUE(conv->Setup({&x}, {&cx}).ok());
  y.ReshapeLike(cx);
  FillGaussian(&y, 2);
  ASSERT_TRUE(deconv->Setup({&y}, {&dy}).ok());
  ASSERT_EQ(dy.shape(), x.shape());
  ASSERT_EQ(deconv->blobs()[0]->shape(), conv->blobs()[0]->shape());
  deconv->blobs()[0]->CopyFrom(*conv->blobs()[0]);
  ASSERT_TRUE(conv->Forward({&x}, {&cx}, nullptr).ok());
  ASSERT_TRUE(deconv->Forward({&y}, {&dy}, nullptr).ok());
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < y.count(); ++i) lhs += cx.data()[i] * y.data()[i];
  for (int64_t i = 0; i < x.count(); ++i) rhs += x.data()[i] * dy.data()[i];
  EXPECT_NEAR(lhs, rhs, 1e-3 * std::max(1.0, std::abs(lhs)));
}

TEST(DeconvolutionLayerTest, CreatedByRegistry) {
  auto layer = MakeLayer(DeconvParam("num_output: 1 kernel_size: 2"));
  ASSERT_NE(layer, nullptr);
  EXPECT_STREQ(layer->type(), "Deconvolution");
}

void CheckDeconvGradients(const std::string& fields, const std::vector<int>& bottom_shape) {
  auto layer = MakeLayer(DeconvParam(fields));
  Tensor bottom(bottom_shape), top;
  FillGaussian(&bottom, 11);
  CheckGradients(*layer, {&bottom}, {&top});
}

TEST(DeconvolutionLayerTest, Gradient) {
  CheckDeconvGradients("num_output: 2 kernel_size: 3", {2, 2, 3, 3});
}

TEST(DeconvolutionLayerTest, GradientStridePad) {
  CheckDeconvGradients("num_output: 3 kernel_size: 4 stride: 2 pad: 1", {1, 2, 3, 2});
}

TEST(DeconvolutionLayerTest, GradientGroupDilation) {
  CheckDeconvGradients("num_output: 4 kernel_size: 2 dilation: 2 group: 2", {1, 2, 3, 3});
}

TEST(DeconvolutionLayerTest, NumOutputNotDivisibleByGroup) {
  auto layer = MakeLayer(DeconvParam("num_output: 3 kernel_size: 2 group: 2"));
  Tensor bottom({1, 2, 3, 3}), top;
  Status s = layer->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'up' (Deconvolution)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("group"), std::string::npos) << s.message();
}

TEST(DeconvolutionLayerTest, PaddingLeavesNoOutput) {
  // 1 * (1 - 1) + 1 - 2 * 1 = -1.
  auto layer = MakeLayer(DeconvParam("num_output: 1 kernel_size: 1 pad: 1"));
  Tensor bottom({1, 1, 1, 1}), top;
  Status s = layer->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(Deconvolution)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
