#include "layers/inner_product_layer.h"

#include <gtest/gtest.h>

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

LayerParameter IpParam(const std::string& fields) {
  const std::string text = "name: 'fc' type: 'InnerProduct' inner_product_param { " + fields +
                           " weight_filler { type: 'gaussian' std: 0.5 } "
                           "bias_filler { type: 'gaussian' std: 0.5 } }";
  return ParseLayerParameter(text);
}

// x = [1 2 3; 4 5 6], W = [1 0 -1; 2 1 0], bias (0.5, -1).
std::vector<float> ForwardByHand(bool transpose) {
  auto layer =
      MakeLayer(IpParam(std::string("num_output: 2 transpose: ") + (transpose ? "true" : "false")));
  Tensor bottom({2, 3}), top;
  FillValues(&bottom, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  if (transpose) {
    EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{3, 2}));
    FillValues(layer->blobs()[0].get(), {1, 2, 0, 1, -1, 0});
  } else {
    EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{2, 3}));
    FillValues(layer->blobs()[0].get(), {1, 0, -1, 2, 1, 0});
  }
  FillValues(layer->blobs()[1].get(), {0.5f, -1});
  EXPECT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{2, 2}));
  return Values(top);
}

TEST(InnerProductLayerTest, ForwardByHand) {
  EXPECT_EQ(ForwardByHand(false), (std::vector<float>{-1.5f, 3, -1.5f, 12}));
}

TEST(InnerProductLayerTest, ForwardTransposed) {
  EXPECT_EQ(ForwardByHand(true), (std::vector<float>{-1.5f, 3, -1.5f, 12}));
}

TEST(InnerProductLayerTest, AxisKeepsLeadingAxes) {
  auto layer = MakeLayer(IpParam("num_output: 5 axis: 2"));
  Tensor bottom({2, 3, 4, 2}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{5, 8}));
  auto last = MakeLayer(IpParam("num_output: 5 axis: -1"));
  ASSERT_TRUE(last->Setup({&bottom}, {&top}).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{2, 3, 4, 5}));
}

TEST(InnerProductLayerTest, BatchMayChange) {
  auto layer = MakeLayer(IpParam("num_output: 3"));
  Tensor bottom({2, 2, 2}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  bottom.Reshape({5, 4});
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{5, 3}));
}

TEST(InnerProductLayerTest, CreatedByRegistry) {
  auto layer = MakeLayer(IpParam("num_output: 1"));
  ASSERT_NE(layer, nullptr);
  EXPECT_STREQ(layer->type(), "InnerProduct");
}

void CheckIpGradients(const std::string& fields, const std::vector<int>& shape) {
  auto layer = MakeLayer(IpParam(fields));
  Tensor bottom(shape), top;
  FillGaussian(&bottom, 9);
  CheckGradients(*layer, {&bottom}, {&top});
}

TEST(InnerProductLayerTest, Gradient) { CheckIpGradients("num_output: 3", {2, 2, 2, 2}); }

TEST(InnerProductLayerTest, GradientTranspose) {
  CheckIpGradients("num_output: 3 transpose: true", {3, 5});
}

TEST(InnerProductLayerTest, GradientAxis) {
  CheckIpGradients("num_output: 2 axis: 2", {2, 3, 2, 2});
}

TEST(InnerProductLayerTest, GradientNoBiasTransposeAxis) {
  CheckIpGradients("num_output: 4 bias_term: false transpose: true axis: -2", {2, 3, 2});
}

TEST(InnerProductLayerTest, InputSizeChangeIsAnError) {
  auto layer = MakeLayer(IpParam("num_output: 3"));
  Tensor bottom({2, 4}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  bottom.Reshape({2, 5});
  Status s = layer->Forward({&bottom}, {&top}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'fc' (InnerProduct)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 5 (10)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 4 (12)"), std::string::npos) << s.message();
}

TEST(InnerProductLayerTest, BadParameters) {
  Tensor bottom({2, 4}), top;
  auto zero = MakeLayer(IpParam("num_output: 0"));
  Status s = zero->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(InnerProduct)"), std::string::npos) << s.message();
  auto axis = MakeLayer(IpParam("num_output: 1 axis: 2"));
  EXPECT_FALSE(axis->Setup({&bottom}, {&top}).ok());
  auto preloaded = MakeLayer(IpParam("num_output: 2"));
  preloaded->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{4, 2}));
  preloaded->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{2}));
  s = preloaded->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("incorrect weight shape"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
