// MultiBoxLoss's pure pieces (src/detection/multibox_targets.h, mining.h): the ground truth read
// from label rows, matches per location class, regression pairs, confidence losses and the
// mining of negatives, each against numbers worked out by hand in the comments.
#include "detection/multibox_targets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "detection/mining.h"

namespace dtrain::detection {
namespace {

NormalizedBox Box(float xmin, float ymin, float xmax, float ymax, int label = -1) {
  NormalizedBox b{xmin, ymin, xmax, ymax};
  b.label = label;
  return b;
}

Prior MakePrior(float xmin, float ymin, float xmax, float ymax) {
  Prior p;
  p.box = Box(xmin, ymin, xmax, ymax);
  return p;
}

MultiBoxSettings ThreeClasses() {
  MultiBoxSettings s;
  s.num_classes = 3;
  return s;
}

TEST(MultiBoxTargetsTest, GroundTruthSkipsPaddingAndDifficultRows) {
  // Row 1 is padding (item -1); row 2 is difficult; item 1.7 truncates to image 1.
  const std::vector<float> rows = {0,    1,  0,  0.1f, 0.1f, 0.2f, 0.2f, 0,   //
                                   -1,   -1, -1, -1,   -1,   -1,   -1,   -1,  //
                                   0,    2,  1,  0.3f, 0.3f, 0.4f, 0.4f, 1,   //
                                   1.7f, 2,  0,  0.5f, 0.5f, 0.6f, 0.6f, 0};
  MultiBoxSettings s = ThreeClasses();
  std::vector<std::vector<NormalizedBox>> gt;
  ASSERT_TRUE(ReadGroundTruth(rows.data(), 4, 3, s, &gt).ok());
  ASSERT_EQ(gt.size(), 3u);
  ASSERT_EQ(gt[0].size(), 2u);
  EXPECT_EQ(gt[0][0].label, 1);
  EXPECT_EQ(gt[0][1].label, 2);
  EXPECT_TRUE(gt[0][1].difficult);
  ASSERT_EQ(gt[1].size(), 1u);
  EXPECT_FLOAT_EQ(gt[1][0].xmin, 0.5f);
  EXPECT_TRUE(gt[2].empty());  // no ground truth

  s.use_difficult_gt = false;
  ASSERT_TRUE(ReadGroundTruth(rows.data(), 4, 3, s, &gt).ok());
  EXPECT_EQ(gt[0].size(), 1u);
}

std::string GroundTruthError(std::vector<float> row, MultiBoxSettings s = ThreeClasses()) {
  std::vector<std::vector<NormalizedBox>> gt;
  Status status = ReadGroundTruth(row.data(), 1, 2, s, &gt);
  return status.ok() ? "ok" : status.message();
}

TEST(MultiBoxTargetsTest, GroundTruthRowsThatNameNoImageOrClassAreRefused) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(GroundTruthError({0, 0, 0, 0, 0, 1, 1, 0}),
            "bottom 3 (ground truth) row 0 has the background label 0 (background_label_id)");
  EXPECT_EQ(GroundTruthError({0, 3, 0, 0, 0, 1, 1, 0}),
            "bottom 3 (ground truth) row 0: label 3 is outside [0, 3) (num_classes)");
  EXPECT_EQ(GroundTruthError({0, -2, 0, 0, 0, 1, 1, 0}),
            "bottom 3 (ground truth) row 0: label -2 is outside [0, 3) (num_classes)");
  EXPECT_EQ(GroundTruthError({2, 1, 0, 0, 0, 1, 1, 0}),
            "bottom 3 (ground truth) row 0: item 2 is outside the batch [0, 2)");
  EXPECT_EQ(GroundTruthError({-3, 1, 0, 0, 0, 1, 1, 0}),
            "bottom 3 (ground truth) row 0: item -3 is outside the batch [0, 2)");
  EXPECT_EQ(GroundTruthError({nan, 1, 0, 0, 0, 1, 1, 0}),
            "bottom 3 (ground truth) row 0: the item nan is not an image index");
  EXPECT_EQ(GroundTruthError({0, 3e9f, 0, 0, 0, 1, 1, 0}),
            "bottom 3 (ground truth) row 0: the label 3000000000.000000 is not a class");
  // A NaN box is read (it matches nothing); with map_object_to_agnostic any object label is one.
  EXPECT_EQ(GroundTruthError({0, 1, 0, nan, 0, 1, 1, 0}), "ok");
  MultiBoxSettings agnostic = ThreeClasses();
  agnostic.num_classes = 2;
  agnostic.map_object_to_agnostic = true;
  EXPECT_EQ(GroundTruthError({0, 17, 0, 0, 0, 1, 1, 0}, agnostic), "ok");
}

// P0 (0, 0)-(0.4, 0.4) and P1 (0.5, 0.5)-(1, 1); ground truth A = P0 (class 1) and
// B (0.5, 0.5)-(0.9, 0.9) (class 2), which overlaps P1 by 0.16 / 0.25 = 0.64.
struct TwoPriors {
  std::vector<Prior> priors = {MakePrior(0, 0, 0.4f, 0.4f), MakePrior(0.5f, 0.5f, 1, 1)};
  std::vector<NormalizedBox> boxes = {priors[0].box, priors[1].box};
  std::vector<NormalizedBox> gt = {Box(0, 0, 0.4f, 0.4f, 1), Box(0.5f, 0.5f, 0.9f, 0.9f, 2)};
  ImageMatchScratch scratch;
  ImageMatches matches;
};

TEST(MultiBoxTargetsTest, PriorMatchesGoToTheClassOfTheirLabelWithoutSharedLocations) {
  TwoPriors t;
  MultiBoxSettings s = ThreeClasses();
  std::vector<float> loc(2 * 3 * 4, 0.f);
  FindImageMatches(t.gt, t.priors, t.boxes, loc.data(), s, &t.scratch, &t.matches);
  ASSERT_EQ(t.matches.indices.size(), 1u);
  EXPECT_EQ(t.matches.indices[0], (std::vector<int>{0, 1}));
  EXPECT_NEAR(t.matches.overlaps[0][1], 0.64f, 1e-6f);

  s.share_location = false;
  FindImageMatches(t.gt, t.priors, t.boxes, loc.data(), s, &t.scratch, &t.matches);
  ASSERT_EQ(t.matches.indices.size(), 3u);
  EXPECT_TRUE(t.matches.indices[0].empty());  // the background's class
  EXPECT_EQ(t.matches.indices[1], (std::vector<int>{0, -1}));
  EXPECT_EQ(t.matches.indices[2], (std::vector<int>{-1, 1}));
  EXPECT_NEAR(t.matches.overlaps[1][1], 0.64f, 1e-6f);  // every class keeps every overlap

  // No ground truth: no class has a match vector, so nothing is positive or mined.
  FindImageMatches({}, t.priors, t.boxes, loc.data(), s, &t.scratch, &t.matches);
  for (const std::vector<int>& m : t.matches.indices) EXPECT_TRUE(m.empty());
}

TEST(MultiBoxTargetsTest, DecodedPredictionsAreMatchedWithoutUsePriorForMatching) {
  TwoPriors t;
  t.gt = {Box(0.5f, 0.5f, 0.9f, 0.9f, 1)};
  MultiBoxSettings s = ThreeClasses();
  s.use_prior_for_matching = false;
  // CORNER codes, variance 0.1: P0 moved by (5, 5, 5, 5) x 0.1 is exactly the ground truth
  // (overlap 1), so the bipartite match takes it; P1 undecoded overlaps it by 0.64 and takes it
  // again per prediction.
  std::vector<float> loc = {5, 5, 5, 5, 0, 0, 0, 0};
  FindImageMatches(t.gt, t.priors, t.boxes, loc.data(), s, &t.scratch, &t.matches);
  EXPECT_EQ(t.matches.indices[0], (std::vector<int>{0, 0}));
  EXPECT_NEAR(t.matches.overlaps[0][0], 1.f, 1e-5f);
  s.match_type = MatchType::kBipartite;
  FindImageMatches(t.gt, t.priors, t.boxes, loc.data(), s, &t.scratch, &t.matches);
  EXPECT_EQ(t.matches.indices[0], (std::vector<int>{0, -1}));
}

TEST(MultiBoxTargetsTest, LocPairsEncodeTheTargetWithBpInsideAndVariances) {
  // Prior (0.1, 0.1)-(0.5, 0.5), variances (0.1, 0.1, 0.2, 0.2); ground truth
  // (0.2, 0.1)-(0.5, 0.7): CORNER target ((0.2 - 0.1) / 0.1, 0 / 0.1, 0 / 0.2, 0.2 / 0.2)
  // = (1, 0, 0, 1).
  Prior prior = MakePrior(0.1f, 0.1f, 0.5f, 0.5f);
  prior.variance = {0.1f, 0.1f, 0.2f, 0.2f};
  const std::vector<Prior> priors = {prior};
  const std::vector<NormalizedBox> gt = {Box(0.2f, 0.1f, 0.5f, 0.7f, 1)};
  ImageMatches matches;
  matches.indices = {{0}};
  matches.overlaps = {{0.5f}};
  const std::vector<float> loc = {0.5f, 0.5f, 0.5f, 0.5f};
  MultiBoxSettings s = ThreeClasses();
  std::vector<LocPair> pairs;
  ASSERT_TRUE(AppendLocPairs(gt, priors, loc.data(), matches, s, &pairs).ok());
  ASSERT_EQ(pairs.size(), 1u);
  const float want_target[4] = {1, 0, 0, 1};
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(pairs[0].target[k], want_target[k], 1e-5f) << k;
    EXPECT_EQ(pairs[0].prediction[k], 0.5f);
  }
  // Smooth L1 of d = (-0.5, 0.5, 0.5, -0.5): 4 x 0.5 x 0.25 = 0.5; L2 the same here.
  EXPECT_NEAR(LocLoss(LocLossType::kSmoothL1, pairs[0]), 0.5f, 1e-5f);
  EXPECT_EQ(LocSlope(LocLossType::kSmoothL1, 3.f), 1.f);
  EXPECT_EQ(LocSlope(LocLossType::kSmoothL1, -3.f), -1.f);
  EXPECT_EQ(LocSlope(LocLossType::kL2, -3.f), -3.f);

  // encode_variance_in_target: the raw offsets (0.1, 0, 0, 0.2), then both sides divided by
  // the variances: target (1, 0, 0, 1), prediction (5, 5, 2.5, 2.5).
  s.encode_variance_in_target = true;
  pairs.clear();
  ASSERT_TRUE(AppendLocPairs(gt, priors, loc.data(), matches, s, &pairs).ok());
  const float want_prediction[4] = {5, 5, 2.5f, 2.5f};
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(pairs[0].target[k], want_target[k], 1e-5f) << k;
    EXPECT_NEAR(pairs[0].prediction[k], want_prediction[k], 1e-5f) << k;
  }

  // bp_inside with a prior whose xmin and ymax lie outside [0, 1]: those two predictions take
  // the target's values (no loss, no gradient).
  s.encode_variance_in_target = false;
  s.bp_inside = true;
  std::vector<Prior> outside = {MakePrior(-0.1f, 0.1f, 0.5f, 1.2f)};
  outside[0].variance = prior.variance;
  pairs.clear();
  ASSERT_TRUE(AppendLocPairs(gt, outside, loc.data(), matches, s, &pairs).ok());
  EXPECT_EQ(pairs[0].prediction[0], pairs[0].target[0]);
  EXPECT_EQ(pairs[0].prediction[1], 0.5f);
  EXPECT_EQ(pairs[0].prediction[2], 0.5f);
  EXPECT_EQ(pairs[0].prediction[3], pairs[0].target[3]);

  // A variance of 0 is refused naming the prior, as the fork aborts.
  s.bp_inside = false;
  std::vector<Prior> flat = {prior};
  flat[0].variance[2] = 0;
  pairs.clear();
  Status status = AppendLocPairs(gt, flat, loc.data(), matches, s, &pairs);
  EXPECT_EQ(status.message(),
            "prior 0, matched to a ground truth: a prior variance of 0.000000 (must be positive)");
}

TEST(MultiBoxTargetsTest, ConfidenceLossesAndGradientsByHand) {
  // Scores (ln 2, 0, 0): softmax (0.5, 0.25, 0.25).
  const float x[3] = {std::log(2.f), 0, 0};
  EXPECT_NEAR(ConfLoss(ConfLossType::kSoftmax, x, 3, 0), std::log(2.f), 1e-6f);
  EXPECT_NEAR(ConfLoss(ConfLossType::kSoftmax, x, 3, 1), std::log(4.f), 1e-6f);
  float diff[3];
  ConfGradient(ConfLossType::kSoftmax, x, 3, 1, 2.f, diff);  // 2 (p - onehot(1))
  EXPECT_NEAR(diff[0], 1.f, 1e-6f);
  EXPECT_NEAR(diff[1], -1.5f, 1e-6f);
  EXPECT_NEAR(diff[2], 0.5f, 1e-6f);
  // Logistic, target class 0: -log sigmoid(ln 2) - 2 log(1 - sigmoid(0))
  // = log(1.5) + 2 log 2.
  EXPECT_NEAR(ConfLoss(ConfLossType::kLogistic, x, 3, 0), std::log(1.5f) + 2 * std::log(2.f),
              1e-6f);
  // Label -1: every target 0: log 3 + 2 log 2.
  EXPECT_NEAR(ConfLoss(ConfLossType::kLogistic, x, 3, -1), std::log(3.f) + 2 * std::log(2.f),
              1e-6f);
  ConfGradient(ConfLossType::kLogistic, x, 3, 0, 1.f, diff);  // sigmoid - target
  EXPECT_NEAR(diff[0], 2.f / 3 - 1, 1e-6f);
  EXPECT_NEAR(diff[1], 0.5f, 1e-6f);
}

// Five priors of one image: 0 and 1 matched, 2 to 4 not (overlaps 0.1, 0.6, 0.2).
ImageMatches FivePriors() {
  ImageMatches m;
  m.indices = {{0, 0, -1, -1, -1}};
  m.overlaps = {{0.8f, 0.7f, 0.1f, 0.6f, 0.2f}};
  return m;
}

TEST(MultiBoxMiningTest, MaxNegativePicksTheHighestLossesBelowNegOverlap) {
  MultiBoxSettings s = ThreeClasses();
  s.neg_pos_ratio = 1;
  // 2 positives x 1 = 2 negatives among priors 2 and 4 (prior 3's overlap 0.6 is not below
  // neg_overlap 0.5), whatever their losses: both.
  const std::vector<float> loss = {9, 9, 1, 8, 2};
  ImageMatches m = FivePriors();
  MiningScratch scratch;
  MineHardExamples(s, loss, {}, &m, &scratch);
  EXPECT_EQ(m.negatives, (std::vector<int>{2, 4}));
  // Ratio 0.75: floor(1.5) = 1, the higher loss (prior 4).
  s.neg_pos_ratio = 0.75f;
  m = FivePriors();
  MineHardExamples(s, loss, {}, &m, &scratch);
  EXPECT_EQ(m.negatives, (std::vector<int>{4}));
  // A NaN loss ranks first; the positives are left alone.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  m = FivePriors();
  MineHardExamples(s, {9, 9, nan, 8, 2}, {}, &m, &scratch);
  EXPECT_EQ(m.negatives, (std::vector<int>{2}));
  EXPECT_EQ(m.indices[0], (std::vector<int>{0, 0, -1, -1, -1}));
  // An image without ground truth gets no negatives.
  ImageMatches empty;
  empty.indices = {{}};
  empty.overlaps = {{}};
  MineHardExamples(s, loss, {}, &empty, &scratch);
  EXPECT_TRUE(empty.negatives.empty());
}

TEST(MultiBoxMiningTest, HardExampleDemotesThePositivesItDoesNotPick) {
  MultiBoxSettings s = ThreeClasses();
  s.mining = MiningType::kHardExample;
  s.sample_size = 2;
  // Every prior is a candidate; the two highest losses are priors 1 (7) and 3 (8): prior 1 stays
  // positive, prior 0 becomes unmatched, prior 3 is the negative.
  ImageMatches m = FivePriors();
  MiningScratch scratch;
  MineHardExamples(s, {1, 7, 2, 8, 3}, {}, &m, &scratch);
  EXPECT_EQ(m.indices[0], (std::vector<int>{-1, 0, -1, -1, -1}));
  EXPECT_EQ(m.negatives, (std::vector<int>{3}));
}

TEST(MultiBoxMiningTest, NmsSuppressesOverlappingCandidatesBeforePicking) {
  MultiBoxSettings s = ThreeClasses();
  s.mining = MiningType::kHardExample;
  s.sample_size = 2;
  s.nms = true;
  s.nms_threshold = 0.5f;
  s.nms_top_k = -1;
  // Priors 3 (loss 8) and 1 (loss 7) overlap by 0.81 (0.9^2 over 1): 1 is suppressed, so the
  // pick is 3 and the next, 4 (loss 3). Prior 4's box is small (size below 1e-5), so it is
  // skipped instead and prior 2 (loss 2) comes in.
  const std::vector<NormalizedBox> boxes = {
      Box(0, 0, 0.1f, 0.1f), Box(0.5f, 0.5f, 1.4f, 1.4f), Box(0.2f, 0.2f, 0.3f, 0.3f),
      Box(0.5f, 0.5f, 1.5f, 1.5f), Box(0.7f, 0.7f, 0.701f, 0.701f)};
  ImageMatches m = FivePriors();
  MiningScratch scratch;
  MineHardExamples(s, {1, 7, 2, 8, 3}, boxes, &m, &scratch);
  EXPECT_EQ(m.indices[0], (std::vector<int>{-1, -1, -1, -1, -1}));
  EXPECT_EQ(m.negatives, (std::vector<int>{2, 3}));
  // top_k 0 (nms_param without top_k in the fork) keeps no candidate: nothing is picked.
  s.nms_top_k = 0;
  m = FivePriors();
  MineHardExamples(s, {1, 7, 2, 8, 3}, boxes, &m, &scratch);
  EXPECT_EQ(m.indices[0], (std::vector<int>{-1, -1, -1, -1, -1}));
  EXPECT_TRUE(m.negatives.empty());
  // top_k 1: only the best candidate is considered.
  SuppressByLoss(boxes, {1, 7, 2, 8, 3}, 0.5f, 1, -1, &scratch);
  EXPECT_EQ(scratch.kept, (std::vector<int>{3}));
  SuppressByLoss(boxes, {1, 7, 2, 8, 3}, 0.9f, -1, -1, &scratch);
  EXPECT_EQ(scratch.kept, (std::vector<int>{3, 1, 2, 0}));
}

}  // namespace
}  // namespace dtrain::detection
