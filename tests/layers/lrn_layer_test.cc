#include "layers/lrn_layer.h"

#include <gtest/gtest.h>

#include <cmath>
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
using testing::MakeLayer;
using testing::ParseLayerParameter;

LayerParameter LrnParam(const std::string& fields) {
  const std::string text = "name: 'norm' type: 'LRN' lrn_param { " + fields + " }";
  return ParseLayerParameter(text);
}

std::vector<float> Forward(const std::string& fields, const std::vector<int>& shape,
                           const std::vector<float>& x) {
  auto layer = MakeLayer(LrnParam(fields));
  Tensor bottom(shape), top;
  std::copy(x.begin(), x.end(), bottom.mutable_data());
  EXPECT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  EXPECT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), shape);
  return {top.data(), top.data() + top.count()};
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(LRNLayerTest, AcrossChannelsByHand) {
  // local_size 3, alpha / n = 1, k = 1, beta = 1/2: scale_c = 1 + sum of x^2 over c-1..c+1.
  // x = (1, 2, 3): scales 1 + 5, 1 + 14, 1 + 13.
  ExpectNear(Forward("local_size: 3 alpha: 3 beta: 0.5 k: 1", {1, 3, 1, 1}, {1, 2, 3}),
             {1 / std::sqrt(6.f), 2 / std::sqrt(15.f), 3 / std::sqrt(14.f)});
  // k = 2 and beta = 1: scales 2 + 5, 2 + 14, 2 + 13.
  ExpectNear(Forward("local_size: 3 alpha: 3 beta: 1 k: 2", {1, 3, 1, 1}, {1, 2, 3}),
             {1 / 7.f, 2 / 16.f, 3 / 15.f});
}

TEST(LRNLayerTest, AcrossChannelsDefaultsCaffe) {
  // Defaults: local_size 5, alpha 1, beta 0.75, k 1. With 2 channels, each window holds both.
  const float scale = 1 + (0.5f * 0.5f + 2 * 2) / 5;
  ExpectNear(Forward("", {1, 2, 1, 1}, {0.5f, 2}),
             {0.5f * std::pow(scale, -0.75f), 2 * std::pow(scale, -0.75f)});
}

TEST(LRNLayerTest, WithinChannelByHand) {
  // local_size 3, alpha / 3^2 = 1, beta 1/2. Along a row (1, 2, 3): windows hold {1,2}, {1,2,3},
  // {2,3}: scales 1 + 5, 1 + 14, 1 + 13. Caffe's WITHIN_CHANNEL ignores k (uses 1).
  ExpectNear(Forward("local_size: 3 alpha: 9 beta: 0.5 k: 5 norm_region: WITHIN_CHANNEL",
                     {1, 1, 1, 3}, {1, 2, 3}),
             {1 / std::sqrt(6.f), 2 / std::sqrt(15.f), 3 / std::sqrt(14.f)});
  // A 2x2 image: every 3x3 window covers all four pixels: scale 1 + 30.
  const float s = 1 / std::sqrt(31.f);
  ExpectNear(Forward("local_size: 3 alpha: 9 beta: 0.5 norm_region: WITHIN_CHANNEL", {1, 1, 2, 2},
                     {1, 2, 3, 4}),
             {1 * s, 2 * s, 3 * s, 4 * s});
}

TEST(LRNLayerTest, CreatedByRegistry) {
  auto layer = MakeLayer(LrnParam(""));
  ASSERT_NE(layer, nullptr);
  EXPECT_STREQ(layer->type(), "LRN");
}

void CheckLrnGradients(const std::string& fields, const std::vector<int>& shape) {
  auto layer = MakeLayer(LrnParam(fields));
  Tensor bottom(shape), top;
  FillGaussian(&bottom, 3);
  testing::GradientCheckOptions options;
  options.threshold = 2e-3f;
  CheckGradients(*layer, {&bottom}, {&top}, options);
}

TEST(LRNLayerTest, GradientAcrossChannels) { CheckLrnGradients("", {2, 7, 2, 2}); }

TEST(LRNLayerTest, GradientAcrossChannelsLargeAlpha) {
  CheckLrnGradients("local_size: 3 alpha: 2 beta: 0.6 k: 1.5", {1, 4, 2, 3});
}

TEST(LRNLayerTest, GradientWithinChannel) {
  CheckLrnGradients("local_size: 3 alpha: 2 norm_region: WITHIN_CHANNEL", {2, 2, 4, 3});
}

TEST(LRNLayerTest, EvenLocalSizeIsAnError) {
  auto layer = MakeLayer(LrnParam("local_size: 4"));
  Tensor bottom({1, 3, 2, 2}), top;
  Status s = layer->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'norm' (LRN)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("local_size"), std::string::npos) << s.message();
}

TEST(LRNLayerTest, NeedsFourAxes) {
  auto layer = MakeLayer(LrnParam(""));
  Tensor bottom({2, 3}), top;
  Status s = layer->Setup({&bottom}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2 3 (6)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
