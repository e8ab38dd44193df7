#include "scaling_model.h"

#include <algorithm>

namespace dtrain {

double RingAllreduceSeconds(size_t bytes, int nodes, const LinkModel& link) {
  if (nodes <= 1) return 0;
  const double steps = 2.0 * (nodes - 1);
  return steps / nodes * static_cast<double>(bytes) / link.bytes_per_second +
         steps * link.latency_seconds;
}

double ProjectIterationSeconds(const IterationProfile& profile, int nodes, const LinkModel& link) {
  double communication_done = 0;  // since backward started
  for (const IterationProfile::Bucket& bucket : profile.buckets) {
    const double start = std::max(bucket.ready_seconds, communication_done);
    communication_done = start + RingAllreduceSeconds(bucket.bytes, nodes, link);
  }
  return profile.forward_seconds + std::max(profile.backward_seconds, communication_done) +
         profile.update_seconds;
}

double ProjectEfficiency(const IterationProfile& profile, int nodes, const LinkModel& link) {
  return ProjectIterationSeconds(profile, 1, link) / ProjectIterationSeconds(profile, nodes, link);
}

}  // namespace dtrain
