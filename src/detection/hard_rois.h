// R-FCN's online hard example mining (Intel Caffe's BoxAnnotatorOHEM): of each image's regions of
// interest, the roi_per_img with the highest loss.
//
// Each region has a loss and the image it belongs to (its batch index, any int >= 0; images need
// not be numbered densely). Regions rank by RanksBefore (ranking.h): NaN losses first, then higher
// losses, then lower region indices. Each image keeps the first roi_per_img of its own regions in
// that order, or all of them when it has fewer. Intel Caffe walks all regions in one std::sort
// order and counts down a budget per image, which picks the same regions except among equal
// losses, whose order its unstable sort leaves unspecified (and NaN, where its comparison is no
// strict order and the sort's behaviour is undefined). Pure; thread-safe.
#pragma once

#include <vector>

namespace dtrain::detection {

// What SelectHardRois works in, reused between calls so that a steady state allocates nothing.
struct HardRoiScratch {
  std::vector<int> order;  // the regions by image, then by rank within the image
};

// Sets (*selected)[r], one per region, to 1 for the regions kept and 0 for the others.
// Preconditions: loss.size() == image.size(), every image >= 0, roi_per_img >= 0.
void SelectHardRois(const std::vector<float>& loss, const std::vector<int>& image, int roi_per_img,
                    HardRoiScratch* scratch, std::vector<char>* selected);

}  // namespace dtrain::detection
