#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string Normalize(const std::string& param) {
  return R"(name: "norm" type: "Normalize" norm_param { )" + param + " }";
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << "element " << i;
}

// x is 1 x 2 x 1 x 2: channel 0 holds 3 1, channel 1 holds 4 2.
struct SmallInput {
  Tensor x{std::vector<int>{1, 2, 1, 2}};
  Tensor y;
  SmallInput() { FillValues(&x, {3, 1, 4, 2}); }
};

TEST(NormalizeLayerTest, AcrossSpatialDividesEachItemByItsNorm) {
  SmallInput in;
  auto layer = MakeLayer(R"(name: "norm" type: "Normalize")");  // across_spatial, shared, scale 1
  ASSERT_TRUE(layer->Setup({&in.x}, {&in.y}).ok());
  ASSERT_EQ(layer->blobs().size(), 1u);
  EXPECT_EQ(layer->blobs()[0]->num_axes(), 0);  // one scalar scale
  EXPECT_EQ(Values(*layer->blobs()[0]), (std::vector<float>{1}));
  ASSERT_TRUE(layer->Forward({&in.x}, {&in.y}, nullptr).ok());
  // 9 + 1 + 16 + 4 = 30 (eps 1e-10 is below float's resolution here).
  const float norm = std::sqrt(30.f);
  ExpectNear(Values(in.y), {3 / norm, 1 / norm, 4 / norm, 2 / norm});
}

TEST(NormalizeLayerTest, PerPositionDividesEachPixelByItsChannelsNorm) {
  SmallInput in;
  auto layer = MakeLayer(Normalize("across_spatial: false"));
  ASSERT_TRUE(layer->Setup({&in.x}, {&in.y}).ok());
  ASSERT_TRUE(layer->Forward({&in.x}, {&in.y}, nullptr).ok());
  // Position 0: sqrt(9 + 16) = 5; position 1: sqrt(1 + 4) = sqrt(5).
  const float root5 = std::sqrt(5.f);
  ExpectNear(Values(in.y), {0.6f, 1 / root5, 0.8f, 2 / root5});
}

TEST(NormalizeLayerTest, PerChannelScalesMultiplyTheirChannel) {
  SmallInput in;
  auto layer = MakeLayer(Normalize("across_spatial: false channel_shared: false"));
  ASSERT_TRUE(layer->Setup({&in.x}, {&in.y}).ok());
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{2}));
  EXPECT_EQ(Values(*layer->blobs()[0]), (std::vector<float>{1, 1}));  // the default filler
  FillValues(layer->blobs()[0].get(), {2, 10});
  ASSERT_TRUE(layer->Forward({&in.x}, {&in.y}, nullptr).ok());
  const float root5 = std::sqrt(5.f);
  ExpectNear(Values(in.y), {2 * 0.6f, 2 / root5, 10 * 0.8f, 10 * 2 / root5});
}

TEST(NormalizeLayerTest, EpsIsAddedToTheSumOfSquaresAndFewerAxesAreOneByOne) {
  // 2 axes (N, C), read as H = W = 1: norm = sqrt(9 + 16 + 11) = 6.
  Tensor x({1, 2}), y;
  FillValues(&x, {3, 4});
  auto layer = MakeLayer(Normalize("eps: 11 scale_filler { type: 'constant' value: 3 }"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  ExpectNear(Values(y), {3 * 3 / 6.f, 3 * 4 / 6.f});
  // 3 axes (N, C, H), per position: each of the H = 2 positions on its own.
  Tensor x3({1, 2, 2}), y3;
  FillValues(&x3, {3, 0, 4, 2});
  auto per_position = MakeLayer(Normalize("across_spatial: false eps: 0"));
  ASSERT_TRUE(per_position->Setup({&x3}, {&y3}).ok());
  ASSERT_TRUE(per_position->Forward({&x3}, {&y3}, nullptr).ok());
  ExpectNear(Values(y3), {0.6f, 0, 0.8f, 1});
}

TEST(NormalizeLayerTest, ZeroInputGivesZeroThroughEps) {
  Tensor x({2, 3, 2, 2}), y;
  x.SetData(0.f);
  for (const char* param : {"", "across_spatial: false"}) {
    auto layer = MakeLayer(Normalize(param));
    ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
    ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
    EXPECT_EQ(Values(y), std::vector<float>(24, 0.f));
  }
}

// The scale's gradient is sum(xhat * dy), also at scale 0, where Caffe's sum(y * dy) / scale is
// 0 / 0.
TEST(NormalizeLayerTest, ScaleGradientIsFiniteAtScaleZero) {
  Tensor x({1, 2}), y;
  FillValues(&x, {3, 4});
  auto layer = MakeLayer(Normalize("scale_filler { type: 'constant' value: 0 }"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{0, 0}));
  y.SetDiff(1.f);
  layer->blobs()[0]->SetDiff(0.f);
  layer->Backward({&y}, {true}, {&x});
  // xhat = 0.6 0.8, so d scale = 0.6 + 0.8; dx = (0 * dy - xhat * 0) / 5 = 0.
  EXPECT_NEAR(layer->blobs()[0]->diff()[0], 1.4f, 1e-6f);
  EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + 2), (std::vector<float>{0, 0}));
}

// Every mode, with scales that differ per channel where they can: the bottom's gradient is the
// exact one (Caffe's differs when the channels' scales do).
TEST(NormalizeLayerTest, GradientInEveryMode) {
  for (const char* param :
       {"across_spatial: true channel_shared: true", "across_spatial: true channel_shared: false",
        "across_spatial: false channel_shared: true",
        "across_spatial: false channel_shared: false"}) {
    SCOPED_TRACE(param);
    Tensor x({2, 4, 3, 2}), y;
    testing::FillGaussian(&x, 11);
    auto layer = MakeLayer(
        Normalize(std::string(param) + " scale_filler { type: 'uniform' min: 0.5 max: 2 }"));
    testing::CheckGradients(*layer, {&x}, {&y});
  }
}

TEST(NormalizeLayerTest, InPlaceMatchesOutOfPlace) {
  for (const char* param : {"", "across_spatial: false channel_shared: false"}) {
    SCOPED_TRACE(param);
    const std::string text =
        Normalize(std::string(param) + " scale_filler { type: 'uniform' min: 0.5 max: 2 }");
    auto layer = MakeLayer(text);
    auto in_place = MakeLayer(text);
    Tensor x({2, 3, 2, 2}), y, z;
    testing::FillGaussian(&x, 3);
    z.CopyFrom(x);
    ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
    ASSERT_TRUE(in_place->Setup({&z}, {&z}).ok());
    ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
    ASSERT_TRUE(in_place->Forward({&z}, {&z}, nullptr).ok());
    EXPECT_EQ(Values(z), Values(y));
    testing::FillGaussian(&y, 4);
    std::copy(y.data(), y.data() + 24, y.mutable_diff());
    std::copy(y.data(), y.data() + 24, z.mutable_diff());
    layer->blobs()[0]->SetDiff(0.f);
    in_place->blobs()[0]->SetDiff(0.f);
    layer->Backward({&y}, {true}, {&x});
    in_place->Backward({&z}, {true}, {&z});
    for (int i = 0; i < 24; ++i) EXPECT_FLOAT_EQ(z.diff()[i], x.diff()[i]);
    for (int c = 0; c < layer->blobs()[0]->count(); ++c) {
      EXPECT_FLOAT_EQ(in_place->blobs()[0]->diff()[c], layer->blobs()[0]->diff()[c]);
    }
  }
}

Status SetupStatus(const std::string& prototxt, const std::vector<int>& shape) {
  Tensor x(shape), y;
  auto layer = MakeLayer(prototxt);
  return layer->Setup({&x}, {&y});
}

TEST(NormalizeLayerTest, BadBottomsAndParametersAreRefused) {
  const std::string plain = R"(name: "norm" type: "Normalize")";
  EXPECT_EQ(SetupStatus(plain, {6}).message(),
            "layer 'norm' (Normalize): bottom must have 2 to 4 axes (N, C, H, W), got shape 6 (6)");
  EXPECT_EQ(SetupStatus(plain, {1, 2, 1, 1, 3}).message(),
            "layer 'norm' (Normalize): bottom must have 2 to 4 axes (N, C, H, W), got shape "
            "1 2 1 1 3 (6)");
  EXPECT_EQ(SetupStatus(Normalize("eps: -1"), {1, 2}).message(),
            "layer 'norm' (Normalize): norm_param.eps must be non-negative and finite, got -1");
  EXPECT_EQ(SetupStatus(Normalize("eps: nan"), {1, 2}).message(),
            "layer 'norm' (Normalize): norm_param.eps must be non-negative and finite, got nan");
  EXPECT_EQ(SetupStatus(Normalize("scale_filler { type: 'chicken' }"), {1, 2}).message(),
            "layer 'norm' (Normalize): norm_param.scale_filler: unknown filler type \"chicken\"; "
            "supported: constant, uniform, gaussian, xavier, msra, bilinear, positive_unitball, "
            "gabor");
}

TEST(NormalizeLayerTest, ScalesOfTheWrongSizeAndChangedChannelsAreRefused) {
  Tensor x({1, 3, 2, 2}), y;
  auto layer = MakeLayer(Normalize("channel_shared: false"));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{2}));
  EXPECT_EQ(layer->Setup({&x}, {&y}).message(),
            "layer 'norm' (Normalize): expected 1 scale blob of 3 value(s), got 1 blob(s), the "
            "first 2 (2)");
  auto other = MakeLayer(Normalize("channel_shared: false"));
  ASSERT_TRUE(other->Setup({&x}, {&y}).ok());
  Tensor wider({1, 4, 2, 2});
  EXPECT_EQ(other->Reshape({&wider}, {&y}).message(),
            "layer 'norm' (Normalize): bottom must keep 3 channels, got shape 1 4 2 2 (16)");
}

}  // namespace
}  // namespace dtrain
