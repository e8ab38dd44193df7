// The detection test score: DetectionEvaluate rows collected over batches and ranks into one mAP.
#include "solver/detection_scores.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "core/tensor.h"
#include "distributed/loopback_communicator.h"

namespace dtrain {
namespace {

Tensor Rows(const std::vector<std::vector<float>>& rows) {
  Tensor t({1, 1, static_cast<int>(rows.size()), 5});
  float* v = t.mutable_data();
  for (const auto& row : rows) v = std::copy(row.begin(), row.end(), v);
  return t;
}

// Class 1: 2 positives, detections 0.9 tp, 0.8 fp, 0.7 tp: precision 1, 1/2, 2/3 at recall
// 1/2, 1/2, 1. Integral AP = 1 * 1/2 + 2/3 * 1/2 = 5/6. Class 2: 1 positive, no detection: 0.
// A row with tp = fp = 0 (a difficult box not evaluated) is skipped. mAP = (5/6 + 0) / 2.
const std::vector<std::vector<float>> kBatch1 = {
    {-1, 1, 1, -1, -1}, {-1, 2, 1, -1, -1}, {0, 1, 0.9f, 1, 0}, {0, 1, 0.5f, 0, 0}};
const std::vector<std::vector<float>> kBatch2 = {
    {-1, 1, 1, -1, -1}, {0, 1, 0.8f, 0, 1}, {1, 1, 0.7f, 1, 0}};

TEST(DetectionScoresTest, MeanOverTheClassesWithPositivesOfEachClassesAp) {
  DetectionScores scores(1);
  ASSERT_TRUE(scores.Add(0, Rows(kBatch1), "detection_eval").ok());
  ASSERT_TRUE(scores.Add(0, Rows(kBatch2), "detection_eval").ok());
  auto result = scores.Score(0, detection::ApVersion::kIntegral);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_NEAR(result->per_class.at(1), 5.0 / 6, 1e-6);
  EXPECT_EQ(result->per_class.at(2), 0.f);
  EXPECT_NEAR(result->mean_average_precision, 5.0 / 12, 1e-6);
}

TEST(DetectionScoresTest, TwoRanksGiveTheMapOfAllDetectionsNotTheMeanOfTheirs) {
  // Rank 0 sees batch 1 (AP of class 1 alone: 1 * 1/2 = 0.5), rank 1 batch 2 (0.5 * ... ); the
  // merged collection is the one above on both ranks.
  LoopbackGroup group(2);
  std::vector<DetectionScores> scores(2, DetectionScores(1));
  ASSERT_TRUE(scores[0].Add(0, Rows(kBatch1), "d").ok());
  ASSERT_TRUE(scores[1].Add(0, Rows(kBatch2), "d").ok());
  std::vector<Status> merged(2);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      std::unique_ptr<Communicator> comm = group.Rank(r);
      merged[r] = scores[r].Merge(r, 2, [&](std::vector<double>* v) {
        return comm->AllreduceSum(v->data(), static_cast<int64_t>(v->size()));
      });
    });
  }
  for (std::thread& t : ranks) t.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(merged[r].ok()) << merged[r].message();
    auto result = scores[r].Score(0, detection::ApVersion::kIntegral);
    ASSERT_TRUE(result.ok());
    EXPECT_NEAR(result->mean_average_precision, 5.0 / 12, 1e-6) << "rank " << r;
  }
}

TEST(DetectionScoresTest, OutputsThatAreNotDetectionRowsAreRefused) {
  DetectionScores scores(1);
  Tensor accuracy({1});
  EXPECT_EQ(scores.Add(0, accuracy, "accuracy").message(),
            "test output 'accuracy' holds 1 values, not rows of 5 (DetectionEvaluate's [item, "
            "label, score, tp, fp]); eval_type \"detection\" needs DetectionEvaluate outputs");
  Tensor bad = Rows({{0, 1, std::nanf(""), 1, 0}});
  EXPECT_EQ(scores.Add(0, bad, "d").message(), "test output 'd' row 0 holds a non-finite value");
  // No ground truth at all: 0, not the fork's division by zero.
  auto empty = scores.Score(0, detection::ApVersion::kElevenPoint);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->mean_average_precision, 0.f);
}

}  // namespace
}  // namespace dtrain
