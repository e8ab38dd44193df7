#include "detection/match.h"

#include <algorithm>

namespace dtrain::detection {

Matches MatchBoxes(const std::vector<NormalizedBox>& ground_truth,
                   const std::vector<NormalizedBox>& predictions, int label, MatchType type,
                   float overlap_threshold, bool ignore_cross_boundary) {
  Matches m;
  MatchScratch scratch;
  MatchBoxes(ground_truth, predictions, label, type, overlap_threshold, ignore_cross_boundary,
             &scratch, &m);
  return m;
}

void MatchBoxes(const std::vector<NormalizedBox>& ground_truth,
                const std::vector<NormalizedBox>& predictions, int label, MatchType type,
                float overlap_threshold, bool ignore_cross_boundary, MatchScratch* scratch,
                Matches* out) {
  const int num_pred = static_cast<int>(predictions.size());
  Matches& m = *out;
  m.indices.assign(num_pred, -1);
  m.overlaps.assign(num_pred, 0.f);
  std::vector<int>& candidates = scratch->candidates;
  candidates.clear();
  for (int g = 0; g < static_cast<int>(ground_truth.size()); ++g) {
    if (label == -1 || ground_truth[g].label == label) candidates.push_back(g);
  }
  if (candidates.empty()) return;
  const int num_gt = static_cast<int>(candidates.size());

  // The overlaps above 1e-6, in (prediction, candidate) order: the order the fork's nested maps
  // are walked in, which decides ties.
  std::vector<MatchScratch::Pair>& pairs = scratch->pairs;
  pairs.clear();
  for (int i = 0; i < num_pred; ++i) {
    if (ignore_cross_boundary && IsCrossBoundaryBox(predictions[i])) {
      m.indices[i] = -2;
      continue;
    }
    for (int j = 0; j < num_gt; ++j) {
      const float overlap = JaccardOverlap(predictions[i], ground_truth[candidates[j]]);
      if (overlap > 1e-6f) {
        m.overlaps[i] = std::max(m.overlaps[i], overlap);
        pairs.push_back({i, j, overlap});
      }
    }
  }

  // Bipartite: the best remaining pair, one ground truth at a time.
  std::vector<char>& taken = scratch->taken;
  taken.assign(num_gt, 0);
  for (int round = 0; round < num_gt; ++round) {
    const MatchScratch::Pair* best = nullptr;
    for (const MatchScratch::Pair& p : pairs) {
      if (m.indices[p.prediction] != -1 || taken[p.candidate]) continue;
      if (best == nullptr || p.overlap > best->overlap) best = &p;
    }
    if (best == nullptr) break;
    m.indices[best->prediction] = candidates[best->candidate];
    m.overlaps[best->prediction] = best->overlap;
    taken[best->candidate] = 1;
  }
  if (type == MatchType::kBipartite) return;

  // Per prediction: the rest take their best ground truth at or above the threshold. A
  // prediction's pairs are consecutive.
  for (size_t k = 0; k < pairs.size();) {
    const int i = pairs[k].prediction;
    int best_gt = -1;
    float best = -1;
    for (; k < pairs.size() && pairs[k].prediction == i; ++k) {
      const float overlap = pairs[k].overlap;
      if (overlap >= overlap_threshold && overlap > best)
        best_gt = pairs[k].candidate, best = overlap;
    }
    if (m.indices[i] == -1 && best_gt != -1) {
      m.indices[i] = candidates[best_gt];
      m.overlaps[i] = best;
    }
  }
}

}  // namespace dtrain::detection
