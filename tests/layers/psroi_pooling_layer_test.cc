#include <gtest/gtest.h>

#include <limits>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

// Score maps (1, C, 4, 4) whose channel k holds 100 k + 4 h + w.
void FillMaps(Tensor* maps) {
  float* x = maps->mutable_data();
  for (int k = 0; k < maps->shape(1); ++k) {
    for (int i = 0; i < 16; ++i) x[k * 16 + i] = static_cast<float>(100 * k + i);
  }
}

std::string Failure(Layer& layer, Tensor* maps, Tensor* rois, Tensor* top) {
  Status s = layer.Setup({maps, rois}, {top});
  if (s.ok()) s = layer.Forward({maps, rois}, {top}, nullptr);
  return s.ok() ? "" : s.message();
}

TEST(PSROIPoolingLayerTest, EachBinAveragesItsOwnChannel) {
  // output_dim 2, group_size 2: 8 channels. The roi (0, 0, 3, 3) spans [0, 4) both ways (the far
  // corner + 1), bins of 2 cells. Bin (gh, gw) of output c averages channel (c * 2 + gh) * 2 + gw
  // over its quarter: c = 0: channel 0 over {0, 1, 4, 5} = 2.5, channel 1 over {2, 3, 6, 7} =
  // 104.5, channel 2 over {8, 9, 12, 13} = 210.5, channel 3 over {10, 11, 14, 15} = 312.5;
  // c = 1 reads channels 4..7, 400 more.
  auto layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                            psroi_pooling_param { spatial_scale: 1 output_dim: 2 group_size: 2 })");
  Tensor maps({1, 8, 4, 4}), rois({1, 5}), top;
  FillMaps(&maps);
  FillValues(&rois, {0, 0, 0, 3, 3});
  ASSERT_EQ(Failure(*layer, &maps, &rois, &top), "");
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 2, 2, 2}));
  EXPECT_EQ(Values(top),
            (std::vector<float>{2.5f, 104.5f, 210.5f, 312.5f, 402.5f, 504.5f, 610.5f, 712.5f}));
}

TEST(PSROIPoolingLayerTest, CornersAreRoundedThenScaledAndBinsOverlap) {
  // spatial_scale 0.5, roi (0, 1.5, 0.4, 4.6, 5.5): x from round(1.5) * 0.5 = 1 to (round(4.6) +
  // 1) * 0.5 = 3, y from round(0.4) * 0.5 = 0 to (round(5.5) + 1) * 0.5 = 3.5. Bins of 1 x 1.75:
  // columns [1, 2) and [2, 3); rows [floor(0), ceil(1.75)) = [0, 2) and [floor(1.75), ceil(3.5))
  // = [1, 4). Means: channel 0 of {1, 5} = 3; channel 1 of {2, 6} = 104; channel 2 of {5, 9, 13}
  // = 209; channel 3 of {6, 10, 14} = 310.
  auto layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                            psroi_pooling_param { spatial_scale: 0.5 output_dim: 1 group_size: 2 })");
  Tensor maps({1, 4, 4, 4}), rois({1, 5}), top;
  FillMaps(&maps);
  FillValues(&rois, {0, 1.5f, 0.4f, 4.6f, 5.5f});
  ASSERT_EQ(Failure(*layer, &maps, &rois, &top), "");
  EXPECT_EQ(Values(top), (std::vector<float>{3, 104, 209, 310}));
}

TEST(PSROIPoolingLayerTest, BinsOutsideTheMapAreZero) {
  auto layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                            psroi_pooling_param { spatial_scale: 1 output_dim: 1 group_size: 2 })");
  Tensor maps({1, 4, 4, 4}), rois({1, 5}), top;
  FillMaps(&maps);
  FillValues(&rois, {0, 10, 10, 12, 12});
  ASSERT_EQ(Failure(*layer, &maps, &rois, &top), "");
  EXPECT_EQ(Values(top), (std::vector<float>{0, 0, 0, 0}));
}

TEST(PSROIPoolingLayerTest, BackwardSpreadsTheMeanOverTheBin) {
  // The whole-map roi of the first test with output_dim 1: bin (0, 0) covers cells {0, 1, 4, 5}
  // of channel 0, so a top diff of 8 there gives each 2; bin (1, 1) covers {10, 11, 14, 15} of
  // channel 3, diff 4 gives 1 each.
  auto layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                            psroi_pooling_param { spatial_scale: 1 output_dim: 1 group_size: 2 })");
  Tensor maps({1, 4, 4, 4}), rois({1, 5}), top;
  FillMaps(&maps);
  FillValues(&rois, {0, 0, 0, 3, 3});
  ASSERT_EQ(Failure(*layer, &maps, &rois, &top), "");
  FillValues(&top, {0, 0, 0, 0});
  float* dy = top.mutable_diff();
  dy[0] = 8;
  dy[1] = 0;
  dy[2] = 0;
  dy[3] = 4;
  layer->Backward({&top}, {true, false}, {&maps, &rois});
  std::vector<float> want(64, 0.f);
  for (int i : {0, 1, 4, 5}) want[i] = 2;
  for (int i : {10, 11, 14, 15}) want[48 + i] = 1;
  EXPECT_EQ(std::vector<float>(maps.diff(), maps.diff() + 64), want);
}

TEST(PSROIPoolingLayerTest, GradientOfTheMaps) {
  // Rois over both images, overlapping, one partly outside, one inverted (x2 < x1: its size is
  // forced to 0.1 cell).
  auto layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                            psroi_pooling_param { spatial_scale: 0.5 output_dim: 2 group_size: 3 })");
  Tensor maps({2, 18, 5, 6}), rois({4, 5}), top;
  testing::FillGaussian(&maps, 5);
  FillValues(&rois, {0, 0, 0, 11, 9, 1, 2, 1, 7, 8, 1, 6, 4, 16, 14, 0, 5, 5, 2, 2});
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&maps, &rois}, {&top}, options);
}

TEST(PSROIPoolingLayerTest, BadParametersAndShapesAreRefusedByName) {
  Tensor maps({1, 8, 4, 4}), rois({1, 5}), top;
  FillValues(&rois, {0, 0, 0, 3, 3});
  auto layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                            psroi_pooling_param { spatial_scale: 1 output_dim: 2 group_size: 3 })");
  EXPECT_EQ(Failure(*layer, &maps, &rois, &top),
            "layer 'ps' (PSROIPooling): the score maps (bottom 0) have 8 channels, but output_dim "
            "* group_size^2 is 2 * 3^2 = 18");
  layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                       psroi_pooling_param { spatial_scale: 1 output_dim: 0 group_size: 2 })");
  EXPECT_EQ(Failure(*layer, &maps, &rois, &top),
            "layer 'ps' (PSROIPooling): psroi_pooling_param.output_dim must be positive, got 0");
  layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                       psroi_pooling_param { spatial_scale: 1 output_dim: 2 group_size: -2 })");
  EXPECT_EQ(Failure(*layer, &maps, &rois, &top),
            "layer 'ps' (PSROIPooling): psroi_pooling_param.group_size must be positive, got -2");
  layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                       psroi_pooling_param { spatial_scale: nan output_dim: 2 group_size: 2 })");
  EXPECT_EQ(Failure(*layer, &maps, &rois, &top),
            "layer 'ps' (PSROIPooling): psroi_pooling_param.spatial_scale must be finite, got nan");
  layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                       psroi_pooling_param { spatial_scale: 1 output_dim: 2 group_size: 2 })");
  Tensor flat({1, 8}), four({2, 4});
  EXPECT_EQ(Failure(*layer, &flat, &rois, &top),
            "layer 'ps' (PSROIPooling): the score maps (bottom 0) must have 4 axes (N, C, H, W), "
            "got 1 8 (8)");
  EXPECT_EQ(Failure(*layer, &maps, &four, &top),
            "layer 'ps' (PSROIPooling): the rois (bottom 1) must hold one row of 5 values (batch "
            "index, x1, y1, x2, y2) per region, shape (R, 5), got 2 4 (8)");
}

TEST(PSROIPoolingLayerTest, HostileRowsAreErrorsNamingTheRow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    std::vector<float> row;
    std::string message;
  };
  const Case cases[] = {
      {{3, 0, 0, 1, 1}, "roi row 0: batch index 3 is outside [0, 1), the features' batch"},
      {{0, nan, 0, 1, 1}, "roi row 0: x1 is nan; every value of a roi must be finite"},
      {{0, 0, 0, 3e38f, 1}, "roi row 0: x2 3e+38 times spatial_scale 10 is not finite"},
  };
  for (const Case& c : cases) {
    auto layer = MakeLayer(R"(name: "ps" type: "PSROIPooling"
                              psroi_pooling_param { spatial_scale: 10 output_dim: 2 group_size: 2 })");
    Tensor maps({1, 8, 4, 4}), rois({1, 5}), top;
    FillValues(&rois, c.row);
    EXPECT_EQ(Failure(*layer, &maps, &rois, &top), "layer 'ps' (PSROIPooling): " + c.message);
  }
}

}  // namespace
}  // namespace dtrain
