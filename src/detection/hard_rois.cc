#include "detection/hard_rois.h"

#include <algorithm>

#include "detection/ranking.h"

namespace dtrain::detection {

void SelectHardRois(const std::vector<float>& loss, const std::vector<int>& image, int roi_per_img,
                    HardRoiScratch* scratch, std::vector<char>* selected) {
  const int count = static_cast<int>(loss.size());
  std::vector<int>& order = scratch->order;
  order.resize(count);
  for (int r = 0; r < count; ++r) order[r] = r;
  // Grouping by image first makes each image's budget the length of a prefix of its run.
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (image[a] != image[b]) return image[a] < image[b];
    return RanksBefore(loss[a], a, loss[b], b);
  });
  selected->assign(count, 0);
  int taken = 0;
  for (int k = 0; k < count; ++k) {
    if (k == 0 || image[order[k]] != image[order[k - 1]]) taken = 0;
    if (taken < roi_per_img) {
      (*selected)[order[k]] = 1;
      ++taken;
    }
  }
}

}  // namespace dtrain::detection
