#include "layers/convolution_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/reference/im2col.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::CheckGradients;
using testing::FillGaussian;
using testing::FillIota;
using testing::FillValues;
using testing::MakeLayer;
using testing::ParseLayerParameter;
using testing::Values;

LayerParameter ConvParam(const std::string& conv_fields) {
  const std::string text = "name: 'conv' type: 'Convolution' convolution_param { " + conv_fields +
                           " weight_filler { type: 'gaussian' std: 0.5 } "
                           "bias_filler { type: 'gaussian' std: 0.5 } }";
  return ParseLayerParameter(text);
}

struct ConvRun {
  testing::LayerPtr layer;
  Tensor bottom, top;
  Status status;
};

// Sets up a layer on `bottom_shape` filled 1..n, overwrites its weights and bias, runs forward.
void RunForward(ConvRun* run, const LayerParameter& param, const std::vector<int>& bottom_shape,
                const std::vector<float>& weights, const std::vector<float>& bias) {
  run->layer = MakeLayer(param);
  run->bottom.Reshape(bottom_shape);
  FillIota(&run->bottom, 1.f);
  run->status = run->layer->Setup({&run->bottom}, {&run->top});
  ASSERT_TRUE(run->status.ok()) << run->status.message();
  FillValues(run->layer->blobs()[0].get(), weights);
  if (!bias.empty()) FillValues(run->layer->blobs()[1].get(), bias);
  run->status = run->layer->Forward({&run->bottom}, {&run->top}, nullptr);
  ASSERT_TRUE(run->status.ok()) << run->status.message();
}

TEST(ConvolutionLayerTest, ForwardByHand) {
  // x = [1 2 3; 4 5 6; 7 8 9], w = [1 2; 3 4], bias 0.5.
  ConvRun run;
  RunForward(&run, ConvParam("num_output: 1 kernel_size: 2"), {1, 1, 3, 3}, {1, 2, 3, 4}, {0.5f});
  EXPECT_EQ(run.top.shape(), (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(Values(run.top), (std::vector<float>{37.5f, 47.5f, 67.5f, 77.5f}));
}

TEST(ConvolutionLayerTest, ForwardPadStride) {
  // A 3x3 box filter with pad 1 and stride 2 sums the 2x2 corners of the 3x3 image.
  ConvRun run;
  RunForward(&run, ConvParam("num_output: 1 kernel_size: 3 pad: 1 stride: 2 bias_term: false"),
             {1, 1, 3, 3}, std::vector<float>(9, 1.f), {});
  EXPECT_EQ(run.top.shape(), (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(Values(run.top), (std::vector<float>{12, 16, 24, 28}));
}

TEST(ConvolutionLayerTest, ForwardDilation) {
  // A 2x2 kernel dilated by 2 spans 3x3 and reads the four corners.
  ConvRun run;
  RunForward(&run, ConvParam("num_output: 1 kernel_size: 2 dilation: 2 bias_term: false"),
             {1, 1, 3, 3}, {1, 1, 1, 1}, {});
  EXPECT_EQ(run.top.shape(), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(Values(run.top), (std::vector<float>{1 + 3 + 7 + 9}));
}

TEST(ConvolutionLayerTest, ForwardGroupsDoNotMix) {
  // Two groups of one channel each: output c sees input c only.
  ConvRun run;
  RunForward(&run, ConvParam("num_output: 2 kernel_size: 1 group: 2"), {1, 2, 1, 1}, {3, 5},
             {0, 1});
  EXPECT_EQ(run.layer->blobs()[0]->shape(), (std::vector<int>{2, 1, 1, 1}));
  EXPECT_EQ(Values(run.top), (std::vector<float>{3, 11}));
}

TEST(ConvolutionLayerTest, ForwardRectangularKernelAndPadForms) {
  // kernel 1x2 with pad_w 1: y[w] = x[w-1] + 10 * x[w] over the padded row [0 1 2 3 0].
  ConvRun run;
  RunForward(&run,
             ConvParam("num_output: 1 kernel_h: 1 kernel_w: 2 pad_h: 0 pad_w: 1 "
                       "bias_term: false"),
             {1, 1, 1, 3}, {1, 10}, {});
  EXPECT_EQ(run.top.shape(), (std::vector<int>{1, 1, 1, 4}));
  EXPECT_EQ(Values(run.top), (std::vector<float>{10, 21, 32, 3}));
  // The same with the repeated forms: kernel_size: 1 kernel_size: 2, pad: 0 pad: 1.
  ConvRun repeated;
  RunForward(&repeated,
             ConvParam("num_output: 1 kernel_size: 1 kernel_size: 2 pad: 0 pad: 1 "
                       "bias_term: false"),
             {1, 1, 1, 3}, {1, 10}, {});
  EXPECT_EQ(Values(repeated.top), Values(run.top));
}

TEST(ConvolutionLayerTest, ShapesAndFillers) {
  auto layer = MakeLayer(ConvParam("num_output: 4 kernel_size: 3 stride: 2 pad: 1 group: 2"));
  Tensor bottom({2, 6, 7, 5}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{2, 4, 4, 3}));
  ASSERT_EQ(layer->blobs().size(), 2u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{4, 3, 3, 3}));
  EXPECT_EQ(layer->blobs()[1]->shape(), (std::vector<int>{4}));
  EXPECT_NE(layer->blobs()[0]->data()[0], 0.f);  // gaussian filler ran
}

TEST(ConvolutionLayerTest, CreatedByRegistry) {
  auto layer = MakeLayer(ConvParam("num_output: 1 kernel_size: 1"));
  ASSERT_NE(layer, nullptr);
  EXPECT_STREQ(layer->type(), "Convolution");
}

TEST(ConvolutionLayerTest, Im2ColAndCol2ImAreAdjoint) {
  // <Im2Col(x), c> == <x, Col2Im(c)> for any window, padding, stride and dilation.
  kernels::Window2d w;
  w.kernel_h = 3, w.kernel_w = 2, w.pad_h = 1, w.pad_w = 2, w.stride_h = 2, w.stride_w = 1;
  w.dilation_h = 2, w.dilation_w = 1;
  const int channels = 2, height = 5, width = 4;
  const int out_h = kernels::ConvOutputSize(height, w.kernel_h, w.pad_h, w.stride_h, w.dilation_h);
  const int out_w = kernels::ConvOutputSize(width, w.kernel_w, w.pad_w, w.stride_w, w.dilation_w);
  Tensor x({channels, height, width}), c({channels * w.kernel_h * w.kernel_w, out_h * out_w});
  FillGaussian(&x, 1);
  FillGaussian(&c, 2);
  std::vector<float> col(c.count()), img(x.count());
  reference::Im2Col(x.data(), channels, height, width, w, col.data());
  reference::Col2Im(c.data(), channels, height, width, w, img.data());
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < c.count(); ++i) lhs += col[i] * c.data()[i];
  for (int64_t i = 0; i < x.count(); ++i) rhs += x.data()[i] * img[i];
  EXPECT_NEAR(lhs, rhs, 1e-4);
}

void CheckConvGradients(const std::string& fields, const std::vector<int>& bottom_shape) {
  auto layer = MakeLayer(ConvParam(fields));
  Tensor bottom(bottom_shape), top;
  FillGaussian(&bottom, 7);
  CheckGradients(*layer, {&bottom}, {&top});
}

TEST(ConvolutionLayerTest, Gradient) {
  CheckConvGradients("num_output: 3 kernel_size: 3", {2, 2, 4, 4});
}

TEST(ConvolutionLayerTest, GradientStrideAndPad) {
  CheckConvGradients("num_output: 2 kernel_size: 3 stride: 2 pad: 1", {2, 2, 5, 4});
}

TEST(ConvolutionLayerTest, GradientGroup) {
  CheckConvGradients("num_output: 4 kernel_size: 2 group: 2", {1, 4, 3, 3});
}

TEST(ConvolutionLayerTest, GradientDilation) {
  CheckConvGradients("num_output: 2 kernel_size: 2 dilation: 2 pad: 1", {1, 2, 5, 5});
}

TEST(ConvolutionLayerTest, GradientRectangularNoBias) {
  CheckConvGradients(
      "num_output: 2 kernel_h: 3 kernel_w: 1 stride_h: 1 stride_w: 2 pad_h: 1 "
      "pad_w: 0 bias_term: false",
      {1, 2, 3, 4});
}

TEST(ConvolutionLayerTest, GradientPointwise) {
  CheckConvGradients("num_output: 3 kernel_size: 1", {2, 2, 2, 3});
}

TEST(ConvolutionLayerTest, GradientTwoBottomsShareWeights) {
  auto layer = MakeLayer(ConvParam("num_output: 2 kernel_size: 2 stride: 2"));
  Tensor b0({1, 2, 4, 4}), b1({1, 2, 4, 4}), t0, t1;
  FillGaussian(&b0, 3);
  FillGaussian(&b1, 4);
  CheckGradients(*layer, {&b0, &b1}, {&t0, &t1});
}

Status SetupError(const std::string& fields, const std::vector<int>& bottom_shape) {
  auto layer = MakeLayer(ConvParam(fields));
  Tensor bottom(bottom_shape), top;
  return layer->Setup({&bottom}, {&top});
}

TEST(ConvolutionLayerTest, NumOutputNotDivisibleByGroup) {
  Status s = SetupError("num_output: 3 kernel_size: 1 group: 2", {1, 4, 3, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'conv' (Convolution)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("num_output (3) must be a multiple of group (2)"), std::string::npos)
      << s.message();
}

TEST(ConvolutionLayerTest, ChannelsNotDivisibleByGroup) {
  Status s = SetupError("num_output: 2 kernel_size: 1 group: 2", {1, 3, 3, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("input channels (3)"), std::string::npos) << s.message();
}

TEST(ConvolutionLayerTest, KernelLargerThanPaddedInput) {
  Status s = SetupError("num_output: 1 kernel_size: 5 pad: 1", {1, 1, 2, 2});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'conv' (Convolution)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1 1 2 2"), std::string::npos) << s.message();
}

TEST(ConvolutionLayerTest, BadParameters) {
  EXPECT_FALSE(SetupError("num_output: 1", {1, 1, 3, 3}).ok());  // no kernel
  EXPECT_FALSE(
      SetupError("num_output: 1 kernel_size: 2 kernel_h: 2 kernel_w: 2", {1, 1, 3, 3}).ok());
  EXPECT_FALSE(
      SetupError("num_output: 1 kernel_size: 1 kernel_size: 1 kernel_size: 1", {1, 1, 3, 3}).ok());
  EXPECT_FALSE(SetupError("num_output: 1 kernel_size: 1 stride: 0", {1, 1, 3, 3}).ok());
  EXPECT_FALSE(SetupError("num_output: 0 kernel_size: 1", {1, 1, 3, 3}).ok());
  EXPECT_FALSE(SetupError("num_output: 1 kernel_size: 1", {1, 3}).ok());  // no spatial axis
  EXPECT_FALSE(SetupError("num_output: 1 kernel_size: 1 axis: 4", {1, 1, 3, 3}).ok());
  // A (1, 3, 3) bottom is 1-D, and axis 2 of (1, 1, 3, 3) makes it one (tests/layers/
  // convolution_nd_test.cc).
  EXPECT_TRUE(SetupError("num_output: 1 kernel_size: 1", {1, 3, 3}).ok());
  EXPECT_TRUE(SetupError("num_output: 1 kernel_size: 1 axis: 2", {1, 1, 3, 3}).ok());
}

TEST(ConvolutionLayerTest, UnknownFillerIsAnError) {
  LayerParameter p = ConvParam("num_output: 1 kernel_size: 1");
  p.mutable_convolution_param()->mutable_weight_filler()->set_type("nope");
  auto layer = MakeLayer(p);
  Tensor bottom({1, 1, 2, 2}), top;
  Status s = layer->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("weight_filler"), std::string::npos) << s.message();
}

TEST(ConvolutionLayerTest, PreloadedWeightsOfWrongShape) {
  auto layer = MakeLayer(ConvParam("num_output: 2 kernel_size: 3"));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{2, 1, 2, 2}));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{2}));
  Tensor bottom({1, 1, 4, 4}), top;
  Status s = layer->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2 1 3 3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 1 2 2"), std::string::npos) << s.message();
}

TEST(ConvolutionLayerTest, BottomChannelsChangeAfterSetup) {
  auto layer = MakeLayer(ConvParam("num_output: 1 kernel_size: 1"));
  Tensor bottom({1, 2, 3, 3}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  bottom.Reshape({1, 3, 3, 3});
  Status s = layer->Forward({&bottom}, {&top}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("1 3 3 3"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
