#include "net/diff_planner.h"

#include <algorithm>

namespace dtrain {

DiffPlan PlanDiffBuffers(const std::vector<std::optional<DiffLifetime>>& blobs) {
  DiffPlan plan;
  plan.buffer_of_blob.assign(blobs.size(), -1);
  // Backward runs from the last layer down: a diff becomes live at last_consumer and dies after
  // producer. Visit blobs in the order they become live.
  std::vector<int> order;
  for (size_t i = 0; i < blobs.size(); ++i) {
    if (blobs[i]) order.push_back(static_cast<int>(i));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return blobs[a]->last_consumer > blobs[b]->last_consumer; });
  std::vector<int> busy_until;  // per buffer: the producer index of its latest blob (dies after)
  for (int blob : order) {
    const DiffLifetime& life = *blobs[blob];
    int best = -1;
    for (size_t b = 0; b < busy_until.size(); ++b) {
      if (busy_until[b] <= life.last_consumer) continue;  // still live when this one starts
      const bool fits = plan.buffer_count[b] >= life.count;
      if (best < 0) {
        best = static_cast<int>(b);
        continue;
      }
      const bool best_fits = plan.buffer_count[best] >= life.count;
      // Prefer a buffer that fits, the smallest such; else the largest (it grows least).
      if (fits != best_fits ? fits
                            : (fits ? plan.buffer_count[b] < plan.buffer_count[best]
                                    : plan.buffer_count[b] > plan.buffer_count[best])) {
        best = static_cast<int>(b);
      }
    }
    if (best < 0) {
      best = static_cast<int>(busy_until.size());
      busy_until.push_back(0);
      plan.buffer_count.push_back(0);
    }
    busy_until[best] = life.producer;
    plan.buffer_count[best] = std::max(plan.buffer_count[best], life.count);
    plan.buffer_of_blob[blob] = best;
  }
  return plan;
}

}  // namespace dtrain
