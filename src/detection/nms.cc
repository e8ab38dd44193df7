#include "detection/nms.h"

#include <algorithm>
#include <utility>

#include "core/check.h"

namespace dtrain::detection {

std::vector<int> ApplyNms(const std::vector<NormalizedBox>& boxes, const std::vector<float>& scores,
                          const NmsSettings& settings) {
  DT_CHECK(boxes.size() == scores.size());
  std::vector<std::pair<float, int>> candidates;
  for (int i = 0; i < static_cast<int>(scores.size()); ++i) {
    if (scores[i] > settings.score_threshold) candidates.emplace_back(scores[i], i);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (settings.top_k >= 0 && settings.top_k < static_cast<int>(candidates.size())) {
    candidates.resize(settings.top_k);
  }
  std::vector<int> kept;
  float threshold = settings.nms_threshold;
  for (const auto& [score, index] : candidates) {
    bool keep = true;
    for (int k : kept) {
      if (!(JaccardOverlap(boxes[index], boxes[k]) <= threshold)) {
        keep = false;
        break;
      }
    }
    if (!keep) continue;
    kept.push_back(index);
    if (settings.eta < 1 && threshold > 0.5f) threshold *= settings.eta;
  }
  return kept;
}

}  // namespace dtrain::detection
