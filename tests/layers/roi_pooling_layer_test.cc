#include <gtest/gtest.h>

#include <limits>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillIota;
using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

const char* kTwoByTwo = R"(name: "roi" type: "ROIPooling"
                           roi_pooling_param { pooled_h: 2 pooled_w: 2 })";

// Runs Setup and Forward on the features and rois, expecting success.
void SetupAndForward(Layer& layer, Tensor* features, Tensor* rois, Tensor* top) {
  Status s = layer.Setup({features, rois}, {top});
  ASSERT_TRUE(s.ok()) << s.message();
  s = layer.Forward({features, rois}, {top}, nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
}

// The error of Setup then Forward, "" if both pass.
std::string Failure(Layer& layer, Tensor* features, Tensor* rois, Tensor* top) {
  Status s = layer.Setup({features, rois}, {top});
  if (s.ok()) s = layer.Forward({features, rois}, {top}, nullptr);
  return s.ok() ? "" : s.message();
}

TEST(ROIPoolingLayerTest, MaximaOfTheFourQuartersOfTheWholeMap) {
  // A 4 x 4 map holding 4 h + w; the roi covers it (corners 0 and 3, 4 cells each way), so the
  // 2 x 2 bins are its quarters, rows and columns [0, 2) and [2, 4); each maximum is the quarter's
  // bottom-right cell: 5, 7, 13, 15.
  auto layer = MakeLayer(kTwoByTwo);
  Tensor features({1, 1, 4, 4}), rois({1, 5}), top;
  FillIota(&features, 0.f);
  FillValues(&rois, {0, 0, 0, 3, 3});
  SetupAndForward(*layer, &features, &rois, &top);
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(Values(top), (std::vector<float>{5, 7, 13, 15}));
}

TEST(ROIPoolingLayerTest, CornersAreRoundedHalvesAwayFromZeroAfterScaling) {
  // spatial_scale 0.5 takes (1, 1, 6, 5) to (0.5, 0.5, 3, 2.5), rounded to x1 = y1 = 1, x2 = 3,
  // y2 = 3 (2.5 rounds up, as C's round does; to even it would be 2). The region is 3 x 3 cells,
  // bins of 1.5: [1 + floor(0), 1 + ceil(1.5)) = [1, 3) and [1 + floor(1.5), 1 + ceil(3)) = [2, 4)
  // both ways. Maxima at (2, 2), (2, 3), (3, 2), (3, 3) of the 4 h + w map: 10, 11, 14, 15.
  auto layer = MakeLayer(R"(name: "roi" type: "ROIPooling"
                            roi_pooling_param { pooled_h: 2 pooled_w: 2 spatial_scale: 0.5 })");
  Tensor features({1, 1, 4, 4}), rois({1, 5}), top;
  FillIota(&features, 0.f);
  FillValues(&rois, {0, 1, 1, 6, 5});
  SetupAndForward(*layer, &features, &rois, &top);
  EXPECT_EQ(Values(top), (std::vector<float>{10, 11, 14, 15}));
}

TEST(ROIPoolingLayerTest, BinsClippedToNothingAreZero) {
  // Row 0: corners 2 and 5, 4 cells, bins [2, 4) and [4, 6), the second clipped to [4, 4):
  // only bin (0, 0) has cells, maximum 15. Row 1 lies wholly outside the map: every bin 0.
  auto layer = MakeLayer(kTwoByTwo);
  Tensor features({1, 1, 4, 4}), rois({2, 5}), top;
  FillIota(&features, 0.f);
  FillValues(&rois, {0, 2, 2, 5, 5, 0, 10, 10, 12, 12});
  SetupAndForward(*layer, &features, &rois, &top);
  EXPECT_EQ(Values(top), (std::vector<float>{15, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ROIPoolingLayerTest, BatchIndexIsTruncatedAndPicksTheImageEveryChannelPooled) {
  // Features 2 x 2 x 2 x 2 holding 0..15: image 1's channels hold 8..11 and 12..15. A 1 x 1
  // bin over the whole 2 x 2 map takes each channel's maximum. Batch index 1.7 truncates to 1,
  // -0.5 to 0 (as Caffe's int conversion): image 0's maxima are 3 and 7.
  auto layer = MakeLayer(R"(name: "roi" type: "ROIPooling"
                            roi_pooling_param { pooled_h: 1 pooled_w: 1 })");
  Tensor features({2, 2, 2, 2}), rois({2, 5}), top;
  FillIota(&features, 0.f);
  FillValues(&rois, {1.7f, 0, 0, 1, 1, -0.5f, 0, 0, 1, 1});
  SetupAndForward(*layer, &features, &rois, &top);
  EXPECT_EQ(top.shape(), (std::vector<int>{2, 2, 1, 1}));
  EXPECT_EQ(Values(top), (std::vector<float>{11, 15, 3, 7}));
}

TEST(ROIPoolingLayerTest, RoisOfShapeRx5x1x1AreRead) {
  auto layer = MakeLayer(kTwoByTwo);
  Tensor features({1, 1, 4, 4}), rois({1, 5, 1, 1}), top;
  FillIota(&features, 0.f);
  FillValues(&rois, {0, 0, 0, 3, 3});
  SetupAndForward(*layer, &features, &rois, &top);
  EXPECT_EQ(Values(top), (std::vector<float>{5, 7, 13, 15}));
}

TEST(ROIPoolingLayerTest, BackwardSendsEachDiffToItsMaximumAndAddsRepeats) {
  // Two copies of the whole-map roi: the quarters' maxima are cells 5, 7, 13 and 15, and each
  // gets the sum of its bin's diffs over both rois; every other cell 0.
  auto layer = MakeLayer(kTwoByTwo);
  Tensor features({1, 1, 4, 4}), rois({2, 5}), top;
  FillIota(&features, 0.f);
  FillValues(&rois, {0, 0, 0, 3, 3, 0, 0, 0, 3, 3});
  SetupAndForward(*layer, &features, &rois, &top);
  const std::vector<float> dy = {1, 2, 3, 4, 10, 20, 30, 40};
  std::copy(dy.begin(), dy.end(), top.mutable_diff());
  features.SetDiff(7.f);  // overwritten, not added to
  layer->Backward({&top}, {true, false}, {&features, &rois});
  std::vector<float> want(16, 0.f);
  want[5] = 11;
  want[7] = 22;
  want[13] = 33;
  want[15] = 44;
  EXPECT_EQ(std::vector<float>(features.diff(), features.diff() + 16), want);
}

TEST(ROIPoolingLayerTest, RoisAskedForAGradientGetZero) {
  // As Caffe, whose ROIPooling leaves the rois' diff unwritten: py-faster-rcnn's nets propagate
  // into the rois (from Python layers whose backward does nothing).
  auto layer = MakeLayer(kTwoByTwo);
  Tensor features({1, 1, 4, 4}), rois({1, 5}), top;
  FillIota(&features, 0.f);
  FillValues(&rois, {0, 0, 0, 3, 3});
  SetupAndForward(*layer, &features, &rois, &top);
  top.SetDiff(1.f);
  rois.SetDiff(7.f);
  layer->Backward({&top}, {true, true}, {&features, &rois});
  EXPECT_EQ(std::vector<float>(rois.diff(), rois.diff() + 5), std::vector<float>(5, 0.f));
  EXPECT_EQ(features.diff()[5], 1.f);
}

TEST(ROIPoolingLayerTest, GradientOfTheFeatures) {
  // Distinct values 0.1 apart (a permutation of 0..95 times 0.1), so the step of 1e-2 never
  // moves a maximum; rois over both images, overlapping, one partly outside the map.
  auto layer = MakeLayer(R"(name: "roi" type: "ROIPooling"
                            roi_pooling_param { pooled_h: 2 pooled_w: 3 spatial_scale: 0.5 })");
  Tensor features({2, 3, 4, 4}), rois({4, 5}), top;
  float* x = features.mutable_data();
  for (int i = 0; i < 96; ++i) x[i] = 0.1f * static_cast<float>((i * 37) % 96) - 4.f;
  FillValues(&rois, {0, 0, 0, 7, 7, 1, 2, 1, 5, 6, 1, 0, 0, 3, 3, 0, 4, 4, 12, 10});
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&features, &rois}, {&top}, options);
}

TEST(ROIPoolingLayerTest, BadParametersAreRefusedByName) {
  Tensor features({1, 1, 4, 4}), rois({1, 5}), top;
  FillValues(&rois, {0, 0, 0, 3, 3});
  auto layer = MakeLayer(R"(name: "roi" type: "ROIPooling" roi_pooling_param { pooled_w: 2 })");
  EXPECT_EQ(Failure(*layer, &features, &rois, &top),
            "layer 'roi' (ROIPooling): roi_pooling_param.pooled_h must be positive, got 0");
  layer = MakeLayer(R"(name: "roi" type: "ROIPooling"
                       roi_pooling_param { pooled_h: 2 pooled_w: 4294967295 })");
  EXPECT_EQ(Failure(*layer, &features, &rois, &top),
            "layer 'roi' (ROIPooling): roi_pooling_param.pooled_w is 4294967295, more than a "
            "dimension may be (2147483647)");
  layer = MakeLayer(R"(name: "roi" type: "ROIPooling"
                       roi_pooling_param { pooled_size: 2 pooled_size: 2 pooled_size: 2 })");
  EXPECT_EQ(Failure(*layer, &features, &rois, &top),
            "layer 'roi' (ROIPooling): roi_pooling_param.pooled_size (Intel Caffe's 3-D ROI "
            "pooling) is not supported; give pooled_h and pooled_w");
  layer = MakeLayer(R"(name: "roi" type: "ROIPooling"
                       roi_pooling_param { pooled_h: 2 pooled_w: 2 spatial_scale: inf })");
  EXPECT_EQ(Failure(*layer, &features, &rois, &top),
            "layer 'roi' (ROIPooling): roi_pooling_param.spatial_scale must be finite, got inf");
}

TEST(ROIPoolingLayerTest, BadShapesAreRefused) {
  auto layer = MakeLayer(kTwoByTwo);
  Tensor volume({1, 1, 2, 4, 4}), features({1, 1, 4, 4}), four({3, 4}), rois({1, 5}), top;
  EXPECT_EQ(Failure(*layer, &volume, &rois, &top),
            "layer 'roi' (ROIPooling): 5-axis features (Intel Caffe's 3-D ROI pooling) are not "
            "supported, got 1 1 2 4 4 (32)");
  layer = MakeLayer(kTwoByTwo);
  EXPECT_EQ(Failure(*layer, &features, &four, &top),
            "layer 'roi' (ROIPooling): the rois (bottom 1) must hold one row of 5 values (batch "
            "index, x1, y1, x2, y2) per region, shape (R, 5), got 3 4 (12)");
}

TEST(ROIPoolingLayerTest, HostileRowsAreErrorsNamingTheRow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    std::vector<float> second_row;
    std::string message;
  };
  const Case cases[] = {
      {{2, 0, 0, 1, 1}, "roi row 1: batch index 2 is outside [0, 2), the features' batch"},
      {{-1, 0, 0, 1, 1}, "roi row 1: batch index -1 is outside [0, 2), the features' batch"},
      {{0, 0, nan, 1, 1}, "roi row 1: y1 is nan; every value of a roi must be finite"},
      {{nan, 0, 0, 1, 1}, "roi row 1: batch index is nan; every value of a roi must be finite"},
      {{0, 0, 0, -inf, 1}, "roi row 1: x2 is -inf; every value of a roi must be finite"},
      {{0, 0, 0, 1e20f, 1},
       "roi row 1: x2 1e+20 times spatial_scale 1 is 1e+20, beyond the int coordinates Caffe "
       "computes with"},
  };
  for (const Case& c : cases) {
    auto layer = MakeLayer(kTwoByTwo);
    Tensor features({2, 1, 4, 4}), rois({2, 5}), top;
    std::vector<float> values = {1, 0, 0, 3, 3};
    values.insert(values.end(), c.second_row.begin(), c.second_row.end());
    FillValues(&rois, values);
    EXPECT_EQ(Failure(*layer, &features, &rois, &top), "layer 'roi' (ROIPooling): " + c.message);
  }
}

}  // namespace
}  // namespace dtrain
