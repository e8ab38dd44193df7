#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

std::string PriorBox(const std::string& param) {
  return R"(name: "prior" type: "PriorBox" prior_box_param { )" + param + " }";
}

// Runs the layer on a feature map of h x w cells and an image of image_h x image_w pixels.
struct Priors {
  Tensor feature, image, top;
  Status status;
  Priors(const std::string& param, int h, int w, int image_h, int image_w)
      : feature(std::vector<int>{1, 8, h, w}), image(std::vector<int>{1, 3, image_h, image_w}) {
    auto layer = MakeLayer(PriorBox(param));
    status = layer->Setup({&feature, &image}, {&top});
    if (status.ok()) status = layer->Forward({&feature, &image}, {&top}, nullptr);
  }
  // The 4 coordinates of box `k` of cell (h, w), and the 4 variances beside them.
  std::vector<float> Box(int h, int w, int k, int priors, int width) const {
    const int64_t at = ((static_cast<int64_t>(h) * width + w) * priors + k) * 4;
    return std::vector<float>(top.data() + at, top.data() + at + 4);
  }
  std::vector<float> Variance(int h, int w, int k, int priors, int width) const {
    const int64_t at = top.shape(2) + ((static_cast<int64_t>(h) * width + w) * priors + k) * 4;
    return std::vector<float>(top.data() + at, top.data() + at + 4);
  }
};

void ExpectBox(const std::vector<float>& got, double xmin, double ymin, double xmax, double ymax) {
  ASSERT_EQ(got.size(), 4u);
  EXPECT_NEAR(got[0], xmin, 1e-6);
  EXPECT_NEAR(got[1], ymin, 1e-6);
  EXPECT_NEAR(got[2], xmax, 1e-6);
  EXPECT_NEAR(got[3], ymax, 1e-6);
}

const char kConv43[] =
    "min_size: 30 max_size: 60 aspect_ratio: 2 flip: true clip: false "
    "variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 step: 8 offset: 0.5";

// SSD300's conv4_3_norm_mbox_priorbox: 38 x 38 cells on a 300 x 300 image, ratios 1 2 1/2 and the
// sqrt(30 * 60) square: 4 priors per cell.
TEST(PriorBoxLayerTest, Ssd300Conv43BoxesOfTheFirstCells) {
  Priors p(kConv43, 38, 38, 300, 300);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.top.shape(), (std::vector<int>{1, 2, 38 * 38 * 4 * 4}));
  const double half_mid = std::sqrt(1800.0) / 2;  // sqrt(30 * 60) / 2 = 21.2132...
  const double half_long = 30 * std::sqrt(2.0) / 2, half_short = 30 / std::sqrt(2.0) / 2;
  // Cell (0, 0): centre (0 + 0.5) * 8 = 4 on both axes.
  ExpectBox(p.Box(0, 0, 0, 4, 38), (4 - 15) / 300.0, (4 - 15) / 300.0, (4 + 15) / 300.0,
            (4 + 15) / 300.0);
  ExpectBox(p.Box(0, 0, 1, 4, 38), (4 - half_mid) / 300, (4 - half_mid) / 300, (4 + half_mid) / 300,
            (4 + half_mid) / 300);
  // Ratio 2: 30 sqrt(2) wide, 30 / sqrt(2) high; then its flip 1/2.
  ExpectBox(p.Box(0, 0, 2, 4, 38), (4 - half_long) / 300, (4 - half_short) / 300,
            (4 + half_long) / 300, (4 + half_short) / 300);
  ExpectBox(p.Box(0, 0, 3, 4, 38), (4 - half_short) / 300, (4 - half_long) / 300,
            (4 + half_short) / 300, (4 + half_long) / 300);
  // Cell (h 1, w 2): centre x (2 + 0.5) * 8 = 20, y (1 + 0.5) * 8 = 12.
  ExpectBox(p.Box(1, 2, 0, 4, 38), 5 / 300.0, -3 / 300.0, 35 / 300.0, 27 / 300.0);
  // The last cell (37, 37): centre 37.5 * 8 = 300, past the image without clip.
  ExpectBox(p.Box(37, 37, 0, 4, 38), 285 / 300.0, 285 / 300.0, 315 / 300.0, 315 / 300.0);
  // Four variances, in coordinate order, for every box.
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(p.Variance(0, 0, k, 4, 38), (std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}));
    EXPECT_EQ(p.Variance(37, 37, k, 4, 38), (std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}));
  }
}

// MobileNet-SSD's conv13 prior box: min 105, max 150 there; here min 60, max 105, ratios 2 and 3
// with flip (1 2 1/2 3 1/3, and the sqrt(60 * 105) square: 6 priors), clipped; no step, so the
// step is 300 / 10 = 30 pixels; no variance, so 0.1 everywhere.
TEST(PriorBoxLayerTest, MobileNetSsdBoxesAreClipped) {
  Priors p("min_size: 60 max_size: 105 aspect_ratio: 2 aspect_ratio: 3 flip: true clip: true", 10,
           10, 300, 300);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.top.shape(), (std::vector<int>{1, 2, 10 * 10 * 6 * 4}));
  // Cell (0, 0): centre 15, 15. The 60 square reaches -15: clipped to 0.
  ExpectBox(p.Box(0, 0, 0, 6, 10), 0, 0, 45 / 300.0, 45 / 300.0);
  const double half_mid = std::sqrt(6300.0) / 2;  // 39.686...
  ExpectBox(p.Box(0, 0, 1, 6, 10), 0, 0, (15 + half_mid) / 300, (15 + half_mid) / 300);
  // Ratio 3 (the 4th box, after 2 and 1/2): 60 sqrt(3) = 103.92 wide, 60 / sqrt(3) = 34.64 high.
  ExpectBox(p.Box(0, 0, 4, 6, 10), 0, 0, (15 + 30 * std::sqrt(3.0)) / 300,
            (15 + 30 / std::sqrt(3.0)) / 300);
  // Cell (h 4, w 5): centre x 5.5 * 30 = 165, y 4.5 * 30 = 135; nothing to clip.
  ExpectBox(p.Box(4, 5, 0, 6, 10), 135 / 300.0, 105 / 300.0, 195 / 300.0, 165 / 300.0);
  ExpectBox(p.Box(4, 5, 5, 6, 10), (165 - 30 / std::sqrt(3.0)) / 300,
            (135 - 30 * std::sqrt(3.0)) / 300, (165 + 30 / std::sqrt(3.0)) / 300,
            (135 + 30 * std::sqrt(3.0)) / 300);
  // The last cell (9, 9): centre 285; the 60 square would reach 315: clipped to 1.
  ExpectBox(p.Box(9, 9, 0, 6, 10), 255 / 300.0, 255 / 300.0, 1, 1);
  for (int64_t i = 0; i < p.top.shape(2); ++i) {
    EXPECT_GE(p.top.data()[i], 0.f);
    EXPECT_LE(p.top.data()[i], 1.f);
  }
  EXPECT_EQ(p.Variance(3, 7, 2, 6, 10), (std::vector<float>{0.1f, 0.1f, 0.1f, 0.1f}));
}

// Intel Caffe and SSD truncate the sizes to whole pixels: 30.9 and 60.7 make conv4_3's boxes.
TEST(PriorBoxLayerTest, FractionalSizesAreTruncatedToWholePixels) {
  Priors whole(kConv43, 38, 38, 300, 300);
  Priors fractional(
      "min_size: 30.9 max_size: 60.7 aspect_ratio: 2 "
      "variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 step: 8",
      38, 38, 300, 300);
  ASSERT_TRUE(fractional.status.ok()) << fractional.status.message();
  EXPECT_EQ(testing::Values(fractional.top), testing::Values(whole.top));
  ExpectBox(fractional.Box(0, 0, 0, 4, 38), -11 / 300.0, -11 / 300.0, 19 / 300.0, 19 / 300.0);
}

// img_h / img_w replace the image bottom's size, step_h / step_w the derived step, and offset 0
// puts the centre on the cell's corner: cell (h 1, w 2) is centred at x 2 * 20 = 40, y 1 * 10 = 10.
TEST(PriorBoxLayerTest, GivenImageSizeStepsAndOffset) {
  Priors p("min_size: 10 img_h: 200 img_w: 100 step_h: 10 step_w: 20 offset: 0", 2, 3, 7, 9);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.top.shape(), (std::vector<int>{1, 2, 2 * 3 * 1 * 4}));
  ExpectBox(p.Box(1, 2, 0, 1, 3), 35 / 100.0, 5 / 200.0, 45 / 100.0, 15 / 200.0);
  // img_size sets both sides; with no step the step is 64 / 2 = 32 across, 64 / 4 = 16 down.
  Priors square("min_size: 8 img_size: 64 variance: 0.5", 4, 2, 7, 9);
  ASSERT_TRUE(square.status.ok()) << square.status.message();
  // Cell (h 3, w 1): centre x 1.5 * 32 = 48, y 3.5 * 16 = 56.
  ExpectBox(square.Box(3, 1, 0, 1, 2), 44 / 64.0, 52 / 64.0, 52 / 64.0, 60 / 64.0);
  EXPECT_EQ(square.Variance(3, 1, 0, 1, 2), (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
  // Without either, the image bottom's 40 x 80 pixels: steps 80 / 2 = 40 across, 40 / 4 = 10 down.
  Priors bottom("min_size: 8", 4, 2, 40, 80);
  ExpectBox(bottom.Box(3, 1, 0, 1, 2), 56 / 80.0, 31 / 40.0, 64 / 80.0, 39 / 40.0);
}

// Ratios within 1e-6 of one already listed (1 included, flipped ones included) are dropped, and
// the rest keep the order given, each followed by its flip.
TEST(PriorBoxLayerTest, AspectRatiosAreDeduplicatedInTheirOrder) {
  Priors dup(
      "min_size: 10 aspect_ratio: 2 aspect_ratio: 0.5 aspect_ratio: 1 "
      "aspect_ratio: 2.0000001 img_size: 100 step: 10",
      1, 1, 9, 9);
  ASSERT_TRUE(dup.status.ok()) << dup.status.message();
  EXPECT_EQ(dup.top.shape(), (std::vector<int>{1, 2, 3 * 4}));  // 1, 2, 1/2
  Priors no_flip(
      "min_size: 10 aspect_ratio: 2 aspect_ratio: 0.5 flip: false img_size: 100 step: 10", 1, 1, 9,
      9);
  EXPECT_EQ(testing::Values(no_flip.top), testing::Values(dup.top));
  Priors ordered("min_size: 10 aspect_ratio: 4 aspect_ratio: 2 img_size: 100 step: 10", 1, 1, 9, 9);
  ASSERT_TRUE(ordered.status.ok()) << ordered.status.message();
  // Centre 5, 5. Boxes: the square, 4 (20 x 5), 1/4 (5 x 20), 2, 1/2.
  ExpectBox(ordered.Box(0, 0, 1, 5, 1), -5 / 100.0, 2.5 / 100, 15 / 100.0, 7.5 / 100);
  ExpectBox(ordered.Box(0, 0, 2, 5, 1), 2.5 / 100, -5 / 100.0, 7.5 / 100, 15 / 100.0);
  const double wide = 5 * std::sqrt(2.0), narrow = 5 / std::sqrt(2.0);
  ExpectBox(ordered.Box(0, 0, 3, 5, 1), (5 - wide) / 100, (5 - narrow) / 100, (5 + wide) / 100,
            (5 + narrow) / 100);
}

// Two min sizes: per cell, all of the first's boxes, then all of the second's.
TEST(PriorBoxLayerTest, EachMinSizeHasItsBoxesInTurn) {
  Priors p(
      "min_size: 10 min_size: 20 max_size: 40 max_size: 80 aspect_ratio: 2 flip: false "
      "img_size: 100 step: 10",
      1, 1, 9, 9);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.top.shape(), (std::vector<int>{1, 2, 6 * 4}));  // (1 + 1 ratio) x 2 + 2
  ExpectBox(p.Box(0, 0, 0, 6, 1), 0, 0, 0.1, 0.1);            // 10 square at centre 5
  ExpectBox(p.Box(0, 0, 1, 6, 1), -0.05, -0.05, 0.15, 0.15);  // sqrt(10 * 40) = 20
  ExpectBox(p.Box(0, 0, 3, 6, 1), -0.05, -0.05, 0.15, 0.15);  // the 20 square
  ExpectBox(p.Box(0, 0, 4, 6, 1), -0.15, -0.15, 0.25, 0.25);  // sqrt(20 * 80) = 40
}

TEST(PriorBoxLayerTest, HasNoGradient) {
  auto layer = MakeLayer(PriorBox("min_size: 10"));
  EXPECT_FALSE(layer->HasGradient());
  EXPECT_FALSE(layer->AllowForceBackward(0));
  EXPECT_FALSE(layer->AllowForceBackward(1));
}

std::string Refusal(const std::string& param, int h = 2, int w = 2, int image_h = 8,
                    int image_w = 8) {
  Priors p(param, h, w, image_h, image_w);
  return p.status.message();
}

TEST(PriorBoxLayerTest, SizesThatMakeNoBoxAreRefused) {
  const std::string at = "layer 'prior' (PriorBox): prior_box_param.";
  EXPECT_EQ(Refusal(""), at + "min_size must be given");
  EXPECT_EQ(Refusal("min_size: 0"), at + "min_size must be positive, got 0");
  EXPECT_EQ(Refusal("min_size: 30 min_size: -4"), at + "min_size must be positive, got -4");
  EXPECT_EQ(Refusal("min_size: nan"), at + "min_size must be positive, got nan");
  EXPECT_EQ(Refusal("min_size: 3e9"),
            at + "min_size is 3e+09, more than a box may be (2147483647 pixels)");
  EXPECT_EQ(Refusal("min_size: 30 min_size: 60 max_size: 90"),
            at + "max_size must be given once per min_size (2 times) or not at all, got 1 values");
  EXPECT_EQ(Refusal("min_size: 30 max_size: 30"),
            at + "max_size 30 must be more than its min_size 30");
  EXPECT_EQ(Refusal("min_size: 30 max_size: 20.5"),
            at + "max_size 20.5 must be more than its min_size 30");
  EXPECT_EQ(Refusal("min_size: 30 max_size: inf"),
            at + "max_size is inf, more than a box may be (2147483647 pixels)");
  EXPECT_EQ(Refusal("min_size: 30 aspect_ratio: 0"),
            at + "aspect_ratio must be positive and finite, got 0");
  EXPECT_EQ(Refusal("min_size: 30 aspect_ratio: -2"),
            at + "aspect_ratio must be positive and finite, got -2");
}

TEST(PriorBoxLayerTest, VariancesOfAnotherCountOrNotPositiveAreRefused) {
  const std::string at = "layer 'prior' (PriorBox): prior_box_param.";
  EXPECT_EQ(Refusal("min_size: 4 variance: 0.1 variance: 0.2"),
            at + "variance must be given once, 4 times or not at all, got 2 values");
  EXPECT_EQ(Refusal("min_size: 4 variance: 0.1 variance: 0.1 variance: 0.2"),
            at + "variance must be given once, 4 times or not at all, got 3 values");
  EXPECT_EQ(Refusal("min_size: 4 variance: 0"), at + "variance must be positive and finite, got 0");
  EXPECT_EQ(Refusal("min_size: 4 variance: 0.1 variance: 0.1 variance: -0.2 variance: 0.2"),
            at + "variance must be positive and finite, got -0.2");
}

TEST(PriorBoxLayerTest, ImageSizesAndStepsGivenTwiceOrZeroAreRefused) {
  const std::string at = "layer 'prior' (PriorBox): prior_box_param";
  EXPECT_EQ(Refusal("min_size: 4 img_size: 300 img_h: 300 img_w: 300"),
            at + ": give img_size or img_h and img_w, not both");
  EXPECT_EQ(Refusal("min_size: 4 img_size: 0"), at + ".img_size must be positive, got 0");
  EXPECT_EQ(Refusal("min_size: 4 img_h: 300"), at + ".img_w must be positive, got 0");
  EXPECT_EQ(Refusal("min_size: 4 img_h: 4294967295 img_w: 3"),
            at + ".img_h is 4294967295, more than a dimension may be (2147483647)");
  EXPECT_EQ(Refusal("min_size: 4 step: 8 step_w: 8"),
            at + ": give step or step_h and step_w, not both");
  EXPECT_EQ(Refusal("min_size: 4 step: 0"), at + ".step must be positive and finite, got 0");
  EXPECT_EQ(Refusal("min_size: 4 step_h: 8"), at + ".step_w must be positive and finite, got 0");
  EXPECT_EQ(Refusal("min_size: 4 step_h: inf step_w: 8"),
            at + ".step_h must be positive and finite, got inf");
  EXPECT_EQ(Refusal("min_size: 4 offset: nan"), at + ".offset must be finite, got nan");
}

TEST(PriorBoxLayerTest, EmptyOrOversizedBottomsAreRefused) {
  const std::string at = "layer 'prior' (PriorBox): ";
  EXPECT_EQ(Refusal("min_size: 4", 0, 3), at + "bottom 0 (the feature map) has no cells, shape "
                                               "1 8 0 3 (0)");
  EXPECT_EQ(Refusal("min_size: 4", 2, 2, 0, 8),
            at + "bottom 1 (the image) has height or width 0, shape 1 3 0 8 (0), and "
                 "prior_box_param gives no image size");
  // A given image size needs nothing of the image bottom.
  EXPECT_TRUE(Priors("min_size: 4 img_size: 8", 2, 2, 0, 8).status.ok());
  Tensor feature({1, 1, 2, 2, 1}), image({1, 3, 8, 8}), top;
  auto layer = MakeLayer(PriorBox("min_size: 4"));
  EXPECT_EQ(layer->Setup({&feature, &image}, {&top}).message(),
            at + "bottom 0 (the feature map) must have at most 4 axes (N, C, H, W), got shape "
                 "1 1 2 2 1 (4)");
  // 2048 x 2048 cells of 128 boxes: 2^11 x 2^11 x 2^7 x 4 = 2^31 values, one past an int.
  std::string sizes;
  for (int i = 0; i < 128; ++i) sizes += "min_size: 4 ";
  Tensor large({1, 1, 2048, 2048});
  auto big = MakeLayer(PriorBox(sizes));
  EXPECT_EQ(big->Setup({&large, &image}, {&top}).message(),
            at + "the boxes' length (H x W x priors x 4) is 2147483648, more than a dimension "
                 "may be (2147483647)");
}

}  // namespace
}  // namespace dtrain
