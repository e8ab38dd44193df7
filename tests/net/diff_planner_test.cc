#include "net/diff_planner.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

TEST(DiffPlanner, ChainReusesBuffersOfDeadDiffs) {
  // A chain: blob i is produced by layer i and consumed by layer i + 1. Neighbours overlap at the
  // layer between them; blobs two apart do not.
  std::vector<std::optional<DiffLifetime>> blobs;
  for (int i = 0; i < 6; ++i) blobs.push_back(DiffLifetime{i, i + 1, 100 - 10 * i});
  const DiffPlan plan = PlanDiffBuffers(blobs);
  ASSERT_EQ(plan.buffer_count.size(), 2u);
  for (int i = 0; i + 1 < 6; ++i) EXPECT_NE(plan.buffer_of_blob[i], plan.buffer_of_blob[i + 1]);
  for (int i = 0; i + 2 < 6; ++i) EXPECT_EQ(plan.buffer_of_blob[i], plan.buffer_of_blob[i + 2]);
  // Each buffer holds its largest blob.
  EXPECT_EQ(plan.buffer_count[plan.buffer_of_blob[0]], 100);
  EXPECT_EQ(plan.buffer_count[plan.buffer_of_blob[1]], 90);
}

TEST(DiffPlanner, UnplannedBlobsKeepTheirOwn) {
  std::vector<std::optional<DiffLifetime>> blobs = {std::nullopt, DiffLifetime{0, 3, 5},
                                                    std::nullopt};
  const DiffPlan plan = PlanDiffBuffers(blobs);
  EXPECT_EQ(plan.buffer_of_blob, (std::vector<int>{-1, 0, -1}));
}

TEST(DiffPlanner, OverlappingLifetimesNeverShare) {
  // A long-lived blob (a skip connection) overlaps everything inside its range.
  std::vector<std::optional<DiffLifetime>> blobs = {DiffLifetime{0, 9, 10}, DiffLifetime{2, 3, 10},
                                                    DiffLifetime{4, 5, 10}, DiffLifetime{6, 7, 10}};
  const DiffPlan plan = PlanDiffBuffers(blobs);
  for (int i = 1; i < 4; ++i) EXPECT_NE(plan.buffer_of_blob[0], plan.buffer_of_blob[i]);
  EXPECT_EQ(plan.buffer_count.size(), 2u);
}

TEST(DiffPlanner, PrefersTheSmallestBufferThatFits) {
  // Two dead buffers (sizes 50 and 200) when a blob of 40 becomes live: it takes the 50.
  std::vector<std::optional<DiffLifetime>> blobs = {DiffLifetime{8, 9, 200}, DiffLifetime{8, 9, 50},
                                                    DiffLifetime{2, 3, 40}};
  const DiffPlan plan = PlanDiffBuffers(blobs);
  EXPECT_EQ(plan.buffer_of_blob[2], plan.buffer_of_blob[1]);
  EXPECT_EQ(plan.buffer_count[plan.buffer_of_blob[2]], 50);
}

}  // namespace
}  // namespace dtrain
