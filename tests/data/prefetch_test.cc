#include "data/prefetch.h"

#include <gtest/gtest.h>

#include <atomic>

namespace dtrain {
namespace {

// A loader numbering its batches 0, 1, 2, ... (data = {n, n}, label = {n}).
BatchPrefetcher::Loader Counter(std::atomic<int>* next, int fail_at = -1) {
  return [next, fail_at](Batch* batch) -> Status {
    const int n = (*next)++;
    if (n == fail_at) return DataLoss("record '" + std::to_string(n) + "' is corrupt");
    batch->data.Reshape({2});
    batch->data.SetData(static_cast<float>(n));
    batch->label.Reshape({1});
    batch->label.SetData(static_cast<float>(n));
    return Status::Ok();
  };
}

TEST(PrefetchTest, DeliversBatchesInOrder) {
  std::atomic<int> next{0};
  BatchPrefetcher prefetcher(3, Counter(&next));
  for (int i = 0; i < 20; ++i) {
    auto batch = prefetcher.Take();
    ASSERT_TRUE(batch.ok()) << batch.status().message();
    EXPECT_EQ((*batch)->data.data()[1], static_cast<float>(i));
    EXPECT_EQ((*batch)->label.data()[0], static_cast<float>(i));
    prefetcher.Release(*batch);
  }
}

TEST(PrefetchTest, ErrorReachesTheConsumerAfterEarlierBatches) {
  std::atomic<int> next{0};
  BatchPrefetcher prefetcher(4, Counter(&next, /*fail_at=*/2));
  for (int i = 0; i < 2; ++i) {
    auto batch = prefetcher.Take();
    ASSERT_TRUE(batch.ok());
    EXPECT_EQ((*batch)->label.data()[0], static_cast<float>(i));
    prefetcher.Release(*batch);
  }
  for (int i = 0; i < 2; ++i) {  // and on every later call
    auto batch = prefetcher.Take();
    ASSERT_FALSE(batch.ok());
    EXPECT_EQ(batch.status().code(), StatusCode::kDataLoss);
    EXPECT_EQ(batch.status().message(), "record '2' is corrupt");
  }
}

TEST(PrefetchTest, DestructorStopsAFullQueue) {
  std::atomic<int> next{0};
  {
    BatchPrefetcher prefetcher(2, Counter(&next));
    auto batch = prefetcher.Take();  // the thread now fills the queue and waits
    ASSERT_TRUE(batch.ok());
  }
  EXPECT_LE(next.load(), 3);  // never more than depth + the one taken
}

TEST(PrefetchTest, DestructorWithoutAnyTake) {
  std::atomic<int> next{0};
  { BatchPrefetcher prefetcher(1, Counter(&next)); }
  EXPECT_LE(next.load(), 1);
}

}  // namespace
}  // namespace dtrain
