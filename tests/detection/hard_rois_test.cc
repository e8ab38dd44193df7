// R-FCN's selection of hard regions (detection/hard_rois.h): per-image budgets, ties by region
// index, NaN losses first, images numbered sparsely.
#include "detection/hard_rois.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace dtrain::detection {
namespace {

std::vector<char> Select(const std::vector<float>& loss, const std::vector<int>& image,
                         int roi_per_img) {
  HardRoiScratch scratch;
  std::vector<char> selected;
  SelectHardRois(loss, image, roi_per_img, &scratch, &selected);
  return selected;
}

TEST(BoxAnnotatorOHEMSelectionTest, KeepsTheHighestLossesOfEachImage) {
  // Image 0 has regions 0 (0.5), 1 (2), 3 (1); image 1 has 2 (0.3), 4 (0.9), 5 (0.1). Two per
  // image: 1 and 3, then 4 and 2.
  const std::vector<float> loss = {0.5f, 2, 0.3f, 1, 0.9f, 0.1f};
  const std::vector<int> image = {0, 0, 1, 0, 1, 1};
  EXPECT_EQ(Select(loss, image, 2), (std::vector<char>{0, 1, 1, 1, 1, 0}));
  EXPECT_EQ(Select(loss, image, 1), (std::vector<char>{0, 1, 0, 0, 1, 0}));
  // A budget beyond an image's regions keeps them all.
  EXPECT_EQ(Select(loss, image, 3), (std::vector<char>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(Select(loss, image, 2147483647), (std::vector<char>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(Select(loss, image, 0), (std::vector<char>{0, 0, 0, 0, 0, 0}));
}

TEST(BoxAnnotatorOHEMSelectionTest, EqualLossesRankByRegionAndNaNRanksFirst) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // One image: regions 1, 2 and 4 tie at 3; region 0 is NaN; -inf is last.
  const std::vector<float> loss = {nan, 3, 3, -std::numeric_limits<float>::infinity(), 3, nan};
  const std::vector<int> image(6, 0);
  EXPECT_EQ(Select(loss, image, 1), (std::vector<char>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Select(loss, image, 3), (std::vector<char>{1, 1, 0, 0, 0, 1}));
  EXPECT_EQ(Select(loss, image, 4), (std::vector<char>{1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(Select(loss, image, 5), (std::vector<char>{1, 1, 1, 0, 1, 1}));
}

TEST(BoxAnnotatorOHEMSelectionTest, ImagesNeedNotBeNumberedDensely) {
  // Images 7 and 2000000000, one region kept each; nothing is sized by the image number.
  const std::vector<float> loss = {1, 2, 3, 4};
  const std::vector<int> image = {2000000000, 7, 2000000000, 7};
  EXPECT_EQ(Select(loss, image, 1), (std::vector<char>{0, 0, 1, 1}));
  EXPECT_TRUE(Select({}, {}, 3).empty());
}

}  // namespace
}  // namespace dtrain::detection
