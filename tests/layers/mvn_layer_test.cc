#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/in_place_check.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string Mvn(const std::string& param) {
  return R"(name: "mvn" type: "MVN" mvn_param { )" + param + " }";
}

// 1 x 2 x 1 x 3: channel 0 = [1 2 3] (mean 2, variance 2/3), channel 1 = [0 0 6] (mean 2,
// variance 8). Across both channels: mean 2, variance 26/6.
std::vector<float> Forward(const std::string& prototxt, std::vector<int> shape = {1, 2, 1, 3},
                           std::vector<int>* top_shape = nullptr) {
  Tensor x(shape), y;
  FillValues(&x, {1, 2, 3, 0, 0, 6});
  auto layer = MakeLayer(prototxt);
  Status s = layer->Setup({&x}, {&y});
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  if (top_shape) *top_shape = y.shape();
  return Values(y);
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << "element " << i;
}

TEST(MVNLayerTest, DefaultNormalisesMeanAndVarianceOfEachChannel) {
  const float s0 = std::sqrt(2.f / 3), s1 = std::sqrt(8.f);
  ExpectNear(Forward(R"(name: "mvn" type: "MVN")"), {-1 / s0, 0, 1 / s0, -2 / s1, -2 / s1, 4 / s1});
}

TEST(MVNLayerTest, WithoutNormalizeVarianceOnlyTheMeanIsRemoved) {
  ExpectNear(Forward(Mvn("normalize_variance: false")), {-1, 0, 1, -2, -2, 4});
  ExpectNear(Forward(Mvn("normalize_variance: false across_channels: true")),
             {-1, 0, 1, -2, -2, 4});  // both channels have mean 2
}

TEST(MVNLayerTest, AcrossChannelsNormalisesEachItemAsAWhole) {
  const float s = std::sqrt(26.f / 6);
  ExpectNear(Forward(Mvn("across_channels: true")), {-1 / s, 0, 1 / s, -2 / s, -2 / s, 4 / s});
}

TEST(MVNLayerTest, EpsIsAddedToTheStandardDeviation) {
  const float d0 = std::sqrt(2.f / 3) + 1, d1 = std::sqrt(8.f) + 1;
  ExpectNear(Forward(Mvn("eps: 1")), {-1 / d0, 0, 1 / d0, -2 / d1, -2 / d1, 4 / d1});
}

TEST(MVNLayerTest, TheTopHasFourAxesAsInCaffe) {
  std::vector<int> shape;
  // A 2 x 3 bottom is N = 2, C = 3, H = W = 1: each channel holds one value, which becomes 0.
  ExpectNear(Forward(R"(name: "mvn" type: "MVN")", {2, 3}, &shape), {0, 0, 0, 0, 0, 0});
  EXPECT_EQ(shape, (std::vector<int>{2, 3, 1, 1}));
  const float s0 = std::sqrt(2.f / 3), s1 = std::sqrt(8.f);
  ExpectNear(Forward(Mvn("across_channels: true"), {2, 3}, &shape),
             {-1 / s0, 0, 1 / s0, -2 / s1, -2 / s1, 4 / s1});
}

TEST(MVNLayerTest, BackwardWithoutVarianceSubtractsTheMeanDiff) {
  Tensor x({1, 1, 1, 4}), y;
  FillValues(&x, {3, 1, 4, 1});
  auto layer = MakeLayer(Mvn("normalize_variance: false"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  float* dy = y.mutable_diff();
  dy[0] = 1, dy[1] = 2, dy[2] = 3, dy[3] = 6;  // mean 3
  layer->Backward({&y}, {true}, {&x});
  EXPECT_EQ(std::vector<float>(x.diff(), x.diff() + 4), (std::vector<float>{-2, -1, 0, 3}));
}

TEST(MVNLayerTest, BackwardWithVarianceByHand) {
  // x = [0 3 6]: mean 3, deviations [-3 0 3], standard deviation s = sqrt(6), y = [-3 0 3] / s.
  // dx = (dy - mean(dy) - y * mean(y * dy)) / s with dy = [1 2 6]: mean(dy) = 3 and
  // mean(y * dy) = 15 / (3 s), so y * mean(y * dy) = [-2.5 0 2.5].
  Tensor x({1, 1, 1, 3}), y;
  FillValues(&x, {0, 3, 6});
  auto layer = MakeLayer(R"(name: "mvn" type: "MVN")");
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float s = std::sqrt(6.f);
  ExpectNear(Values(y), {-3 / s, 0, 3 / s});
  y.mutable_diff()[0] = 1, y.mutable_diff()[1] = 2, y.mutable_diff()[2] = 6;
  layer->Backward({&y}, {true}, {&x});
  ExpectNear(std::vector<float>(x.diff(), x.diff() + 3), {0.5f / s, -1 / s, 0.5f / s});
}

TEST(MVNLayerTest, Gradient) {
  for (const char* param : {"", "across_channels: true", "normalize_variance: false",
                            "normalize_variance: false across_channels: true"}) {
    SCOPED_TRACE(param);
    Tensor x({2, 3, 2, 2}), y;
    testing::FillGaussian(&x, 19);
    auto layer = MakeLayer(Mvn(param));
    testing::GradientCheckOptions options;
    options.threshold = 5e-3f;
    testing::CheckGradients(*layer, {&x}, {&y}, options);
  }
}

TEST(MVNLayerTest, InPlaceMatchesOutOfPlace) {
  Tensor x({2, 3, 2, 2});
  testing::FillGaussian(&x, 23);
  testing::ExpectInPlaceMatchesOutOfPlace(R"(name: "mvn" type: "MVN")", x);
  testing::ExpectInPlaceMatchesOutOfPlace(Mvn("across_channels: true normalize_variance: false"),
                                          x);
}

TEST(MVNLayerTest, MoreThanFourAxesIsAnError) {
  Tensor x({1, 2, 1, 3, 1}), y;
  auto layer = MakeLayer(R"(name: "mvn" type: "MVN")");
  EXPECT_EQ(layer->Setup({&x}, {&y}).message(),
            "layer 'mvn' (MVN): needs a bottom of at most 4 axes (N x C x H x W, as in Caffe), "
            "got 1 2 1 3 1 (6)");
}

}  // namespace
}  // namespace dtrain
