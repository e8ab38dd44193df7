#include "detection/mining.h"

#include <algorithm>

#include "detection/ranking.h"

namespace dtrain::detection {

void SuppressByLoss(const std::vector<NormalizedBox>& boxes, const std::vector<float>& scores,
                    float threshold, int top_k, int max_kept, MiningScratch* scratch) {
  std::vector<int>& order = scratch->order;
  order.resize(scores.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(),
            [&scores](int i, int j) { return RanksBefore(scores[i], i, scores[j], j); });
  if (top_k > -1 && top_k < static_cast<int>(order.size())) order.resize(top_k);
  std::vector<int>& kept = scratch->kept;
  kept.clear();
  for (int index : order) {
    if (max_kept >= 0 && static_cast<int>(kept.size()) >= max_kept) break;
    if (BoxSize(boxes[index]) < 1e-5f) continue;
    bool keep = true;
    for (int k : kept) {
      if (JaccardOverlap(boxes[index], boxes[k]) > threshold) {
        keep = false;
        break;
      }
    }
    if (!keep) continue;
    kept.push_back(index);
    if (top_k > -1 && static_cast<int>(kept.size()) >= top_k) break;
  }
}

void MineHardExamples(const MultiBoxSettings& s, const std::vector<float>& loss,
                      const std::vector<NormalizedBox>& boxes, ImageMatches* matches,
                      MiningScratch* scratch) {
  matches->negatives.clear();
  if (matches->indices.empty() || matches->indices[0].empty()) return;  // no ground truth
  std::vector<int>& match = matches->indices[0];
  const std::vector<float>& overlaps = matches->overlaps[0];
  const int num_priors = static_cast<int>(match.size());
  const bool hard = s.mining == MiningType::kHardExample;

  std::vector<std::pair<float, int>>& candidates = scratch->candidates;
  candidates.clear();
  int positives = 0;
  for (int p = 0; p < num_priors; ++p) {
    if (match[p] > -1) ++positives;
    if (hard || (match[p] == -1 && overlaps[p] < s.neg_overlap)) {
      candidates.emplace_back(loss[p], p);
    }
  }
  int wanted = static_cast<int>(candidates.size());
  if (hard) {
    wanted = std::min(wanted, s.sample_size);
  } else {
    // The fork truncates positives * neg_pos_ratio (a float product) to an int.
    const float limit = static_cast<float>(positives) * s.neg_pos_ratio;
    if (limit < static_cast<float>(wanted)) wanted = static_cast<int>(limit);
  }

  wanted = std::max(wanted, 0);
  std::vector<char>& picked = scratch->picked;
  picked.assign(num_priors, 0);
  if (s.nms) {
    scratch->boxes.clear();
    scratch->scores.clear();
    for (const auto& [value, p] : candidates) {
      scratch->boxes.push_back(boxes[p]);
      scratch->scores.push_back(value);
    }
    SuppressByLoss(scratch->boxes, scratch->scores, s.nms_threshold, s.nms_top_k, wanted, scratch);
    const int n = std::min(wanted, static_cast<int>(scratch->kept.size()));
    for (int k = 0; k < n; ++k) picked[candidates[scratch->kept[k]].second] = 1;
  } else {
    std::partial_sort(candidates.begin(), candidates.begin() + wanted, candidates.end(),
                      [](const std::pair<float, int>& a, const std::pair<float, int>& b) {
                        return RanksBefore(a.first, a.second, b.first, b.second);
                      });
    for (int k = 0; k < wanted; ++k) picked[candidates[k].second] = 1;
  }

  for (int p = 0; p < num_priors; ++p) {
    if (match[p] > -1) {
      if (hard && !picked[p]) match[p] = -1;
    } else if (match[p] == -1 && picked[p]) {
      matches->negatives.push_back(p);
    }
  }
}

}  // namespace dtrain::detection
