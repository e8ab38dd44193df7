#include "scaling_model.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

const LinkModel kGigabit = {125e6, 10e-6};  // 1 Gbit/s, 10 us

TEST(ScalingModel, RingAllreduceMovesTwiceTheDataOverTheSlowestLink) {
  EXPECT_EQ(RingAllreduceSeconds(1000000, 1, kGigabit), 0);
  // 2 nodes: each sends half the data twice (reduce-scatter, allgather) = 1 MB in 2 steps.
  EXPECT_NEAR(RingAllreduceSeconds(1000000, 2, kGigabit), 1e6 / 125e6 + 2 * 10e-6, 1e-12);
  // Many nodes: approaches 2 S / bandwidth, plus 2 (N - 1) latencies.
  EXPECT_NEAR(RingAllreduceSeconds(1000000, 100, kGigabit), 1.98 * 1e6 / 125e6 + 198 * 10e-6,
              1e-12);
}

TEST(ScalingModel, CommunicationHiddenBehindBackwardCostsNothing) {
  IterationProfile p;
  p.forward_seconds = 1;
  p.backward_seconds = 2;
  p.update_seconds = 0.5;
  // 1 MB ready at once after backward starts: 8 ms of transfer, well inside backward.
  p.buckets = {{1000000, 0.0}};
  EXPECT_NEAR(ProjectIterationSeconds(p, 2, kGigabit), 3.5, 1e-12);
  EXPECT_NEAR(ProjectEfficiency(p, 2, kGigabit), 1.0, 1e-12);
}

TEST(ScalingModel, BucketsQueueBehindEachOtherAndTheLastOneIsExposed) {
  IterationProfile p;
  p.forward_seconds = 0;
  p.backward_seconds = 1;
  p.update_seconds = 0;
  const LinkModel link = {1e6, 0};  // 1 MB/s, no latency: 2 nodes move S bytes in S us
  // Bucket 0 ready at 0.1 s takes 0.5 s (to 0.6); bucket 1 ready at 0.2 s waits for it and
  // takes 0.5 s (to 1.1); bucket 2 ready at the end of backward (1.0) waits until 1.1, done 1.3.
  p.buckets = {{500000, 0.1}, {500000, 0.2}, {200000, 1.0}};
  EXPECT_NEAR(ProjectIterationSeconds(p, 2, link), 1.3, 1e-9);
  EXPECT_NEAR(ProjectEfficiency(p, 2, link), 1.0 / 1.3, 1e-9);
}

}  // namespace
}  // namespace dtrain
