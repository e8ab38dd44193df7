#include "detection/match.h"

#include <algorithm>
#include <map>

namespace dtrain::detection {

Matches MatchBoxes(const std::vector<NormalizedBox>& ground_truth,
                   const std::vector<NormalizedBox>& predictions, int label, MatchType type,
                   float overlap_threshold, bool ignore_cross_boundary) {
  const int num_pred = static_cast<int>(predictions.size());
  Matches m;
  m.indices.assign(num_pred, -1);
  m.overlaps.assign(num_pred, 0.f);
  std::vector<int> candidates;  // indices into ground_truth of class `label`
  for (int g = 0; g < static_cast<int>(ground_truth.size()); ++g) {
    if (label == -1 || ground_truth[g].label == label) candidates.push_back(g);
  }
  if (candidates.empty()) return m;
  const int num_gt = static_cast<int>(candidates.size());

  // overlaps[i][j]: prediction i against candidate j, kept only above 1e-6.
  std::map<int, std::map<int, float>> overlaps;
  for (int i = 0; i < num_pred; ++i) {
    if (ignore_cross_boundary && IsCrossBoundaryBox(predictions[i])) {
      m.indices[i] = -2;
      continue;
    }
    for (int j = 0; j < num_gt; ++j) {
      const float overlap = JaccardOverlap(predictions[i], ground_truth[candidates[j]]);
      if (overlap > 1e-6f) {
        m.overlaps[i] = std::max(m.overlaps[i], overlap);
        overlaps[i][j] = overlap;
      }
    }
  }

  // Bipartite: the best remaining pair, one ground truth at a time.
  std::vector<bool> taken(num_gt, false);
  for (int round = 0; round < num_gt; ++round) {
    int best_pred = -1, best_gt = -1;
    float best = -1;
    for (const auto& [i, row] : overlaps) {
      if (m.indices[i] != -1) continue;
      for (const auto& [j, overlap] : row) {
        if (!taken[j] && overlap > best) best_pred = i, best_gt = j, best = overlap;
      }
    }
    if (best_pred == -1) break;
    m.indices[best_pred] = candidates[best_gt];
    m.overlaps[best_pred] = best;
    taken[best_gt] = true;
  }
  if (type == MatchType::kBipartite) return m;

  // Per prediction: the rest take their best ground truth above the threshold.
  for (const auto& [i, row] : overlaps) {
    if (m.indices[i] != -1) continue;
    int best_gt = -1;
    float best = -1;
    for (const auto& [j, overlap] : row) {
      if (overlap >= overlap_threshold && overlap > best) best_gt = j, best = overlap;
    }
    if (best_gt != -1) {
      m.indices[i] = candidates[best_gt];
      m.overlaps[i] = best;
    }
  }
  return m;
}

}  // namespace dtrain::detection
