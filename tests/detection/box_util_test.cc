// The SSD fork's box arithmetic (src/detection/): overlaps, encoding, matching, NMS and average
// precision, each against numbers worked out by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "detection/average_precision.h"
#include "detection/box.h"
#include "detection/box_coder.h"
#include "detection/match.h"
#include "detection/nms.h"
#include "detection/output_box.h"

namespace dtrain::detection {
namespace {

NormalizedBox Box(float xmin, float ymin, float xmax, float ymax, int label = -1) {
  NormalizedBox b{xmin, ymin, xmax, ymax};
  b.label = label;
  return b;
}

void ExpectBox(const NormalizedBox& b, float xmin, float ymin, float xmax, float ymax) {
  EXPECT_NEAR(b.xmin, xmin, 1e-6f);
  EXPECT_NEAR(b.ymin, ymin, 1e-6f);
  EXPECT_NEAR(b.xmax, xmax, 1e-6f);
  EXPECT_NEAR(b.ymax, ymax, 1e-6f);
}

TEST(DetectionBoxTest, JaccardOverlapNormalisedAndInPixels) {
  // 0.2 x 0.2 = 0.04 shared; each box 0.16: 0.04 / (0.16 + 0.16 - 0.04) = 1/7.
  EXPECT_NEAR(JaccardOverlap(Box(0, 0, 0.4f, 0.4f), Box(0.2f, 0.2f, 0.6f, 0.6f)), 1 / 7.f, 1e-6f);
  // Pixels 0..9 and 5..14: 5 x 5 = 25 shared, 10 x 10 = 100 each: 25 / 175 = 1/7.
  EXPECT_NEAR(JaccardOverlap(Box(0, 0, 9, 9), Box(5, 5, 14, 14), false), 1 / 7.f, 1e-6f);
  // Boxes sharing an edge: nothing normalised; a 1 x 2 pixel column in pixels: 2 / (4 + 4 - 2).
  EXPECT_EQ(JaccardOverlap(Box(0, 0, 1, 1), Box(1, 0, 2, 1)), 0.f);
  EXPECT_NEAR(JaccardOverlap(Box(0, 0, 1, 1), Box(1, 0, 2, 1), false), 1 / 3.f, 1e-6f);
  EXPECT_EQ(JaccardOverlap(Box(0, 0, 0.1f, 0.1f), Box(0.5f, 0.5f, 1, 1)), 0.f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(JaccardOverlap(Box(nan, 0, 1, 1), Box(0, 0, 1, 1)) > 0.f);
}

TEST(DetectionBoxTest, SizeClipScaleAndBoundary) {
  EXPECT_NEAR(BoxSize(Box(0.1f, 0.2f, 0.5f, 0.7f)), 0.2f, 1e-6f);  // 0.4 x 0.5
  EXPECT_EQ(BoxSize(Box(0, 0, 9, 4), false), 50.f);                // 10 x 5 pixels
  EXPECT_EQ(BoxSize(Box(0.5f, 0, 0.4f, 1)), 0.f);                  // xmax < xmin: empty
  ExpectBox(ClipBox(Box(-0.2f, 0.5f, 1.3f, 2)), 0, 0.5f, 1, 1);
  ExpectBox(ScaleBox(Box(0.1f, 0.5f, 0.5f, 1), 100, 200), 20, 50, 100, 100);
  EXPECT_TRUE(IsCrossBoundaryBox(Box(-0.01f, 0, 1, 1)));
  EXPECT_FALSE(IsCrossBoundaryBox(Box(0, 0, 1, 1)));
}

TEST(DetectionBoxTest, OutputPixelBoxUndoesFitLargeSizePadding) {
  // A 200 x 100 (w x h) image fitted into a 300 x 300 input: 300 x 150 of content, 75 rows of
  // padding above and below, so content y runs over [0.25, 0.75] of the input.
  ResizeSettings fit{ResizeMode::kFitLargeSizeAndPad, 300, 300, 0, 0};
  ExpectBox(OutputPixelBox(Box(0.1f, 0.25f, 0.5f, 0.5f), 100, 200, &fit), 20, 0, 100, 50);
  // WARP (and no resize): clip, then scale.
  ResizeSettings warp{ResizeMode::kWarp, 300, 300, 0, 0};
  ExpectBox(OutputPixelBox(Box(-0.1f, 0.25f, 0.5f, 0.5f), 100, 200, &warp), 0, 25, 100, 50);
  ExpectBox(OutputPixelBox(Box(-0.1f, 0.25f, 0.5f, 0.5f), 100, 200, nullptr), 0, 25, 100, 50);
  EXPECT_EQ(ResizeProblem({ResizeMode::kWarp, 0, 300, 0, 0}),
            "resize_param.height must be positive");
  EXPECT_EQ(ResizeProblem({ResizeMode::kFitSmallSize, 300, 300, 10, 10}),
            "resize_param.height_scale and width_scale with FIT_SMALL_SIZE are not implemented");
}

// The prior (0.1, 0.2)-(0.5, 0.6): 0.4 x 0.4, centre (0.3, 0.4); variances 0.1, 0.1, 0.2, 0.2.
// The box (0.2, 0.1)-(1.0, 0.5): 0.8 x 0.4, centre (0.6, 0.3).
Prior TestPrior() { return {Box(0.1f, 0.2f, 0.5f, 0.6f), {{0.1f, 0.1f, 0.2f, 0.2f}}}; }
const NormalizedBox kBox = Box(0.2f, 0.1f, 1.0f, 0.5f);

struct CodeCase {
  CodeType code;
  bool in_target;
  float x0, y0, x1, y1;  // the expected code
};

TEST(DetectionCoderTest, EncodeByHandAndDecodeBackForEveryCodeType) {
  const float ln2 = std::log(2.f);
  const CodeCase cases[] = {
      // Corner offsets 0.1, -0.1, 0.5, -0.1, over the variances.
      {CodeType::kCorner, true, 0.1f, -0.1f, 0.5f, -0.1f},
      {CodeType::kCorner, false, 1.f, -1.f, 2.5f, -0.5f},
      // Centre offsets 0.3 / 0.4, -0.1 / 0.4; size ratios log(0.8 / 0.4), log(0.4 / 0.4).
      {CodeType::kCenterSize, true, 0.75f, -0.25f, ln2, 0.f},
      {CodeType::kCenterSize, false, 7.5f, -2.5f, ln2 / 0.2f, 0.f},
      // Corner offsets over the prior's 0.4 x 0.4.
      {CodeType::kCornerSize, true, 0.25f, -0.25f, 1.25f, -0.25f},
      {CodeType::kCornerSize, false, 2.5f, -2.5f, 6.25f, -1.25f},
  };
  for (const CodeCase& c : cases) {
    SCOPED_TRACE(static_cast<int>(c.code) * 10 + c.in_target);
    StatusOr<NormalizedBox> code = EncodeBox(TestPrior(), c.code, c.in_target, kBox);
    ASSERT_TRUE(code.ok()) << code.status().message();
    EXPECT_NEAR(code->xmin, c.x0, 1e-5f);
    EXPECT_NEAR(code->ymin, c.y0, 1e-5f);
    EXPECT_NEAR(code->xmax, c.x1, 1e-5f);
    EXPECT_NEAR(code->ymax, c.y1, 1e-5f);
    const NormalizedBox back = DecodeBox(TestPrior(), c.code, c.in_target, *code);
    ExpectBox(back, kBox.xmin, kBox.ymin, kBox.xmax, kBox.ymax);
  }
}

TEST(DetectionCoderTest, DecodeClipsOnlyWhenAsked) {
  // CORNER, variances in the target: prior + offsets = (-0.1, 0.2)-(1.5, 0.6).
  const NormalizedBox offsets = Box(-0.2f, 0, 1.0f, 0);
  ExpectBox(DecodeBox(TestPrior(), CodeType::kCorner, true, offsets), -0.1f, 0.2f, 1.5f, 0.6f);
  ExpectBox(DecodeBox(TestPrior(), CodeType::kCorner, true, offsets, true), 0, 0.2f, 1, 0.6f);
}

TEST(DetectionCoderTest, RefusesWhatTheForkAbortsOn) {
  Prior flat = TestPrior();
  flat.box.xmax = flat.box.xmin;
  EXPECT_EQ(PriorProblem(flat, CodeType::kCorner), "");
  EXPECT_EQ(PriorProblem(flat, CodeType::kCenterSize),
            "a prior box of width 0.000000 and height 0.400000 (both must be positive to decode "
            "offsets relative to it)");
  EXPECT_EQ(EncodeBox(flat, CodeType::kCornerSize, false, kBox).status().message(),
            PriorProblem(flat, CodeType::kCornerSize));
  EXPECT_EQ(EncodeBox(TestPrior(), CodeType::kCenterSize, false, Box(0.5f, 0, 0.5f, 1))
                .status()
                .message(),
            "a box of width 0.000000 and height 1.000000 (CENTER_SIZE encodes only boxes of "
            "positive size)");
  Prior no_variance = TestPrior();
  no_variance.variance[2] = 0;
  EXPECT_EQ(EncodeBox(no_variance, CodeType::kCorner, false, kBox).status().message(),
            "a prior variance of 0.000000 (must be positive)");
  EXPECT_TRUE(EncodeBox(no_variance, CodeType::kCorner, true, kBox).ok());
}

// Ground truth G0 (0, 0)-(0.5, 0.5) of class 1 and G1 (0.5, 0.5)-(1, 1) of class 2. Overlaps:
// P0 = G0: 1 with G0; P1 (0, 0)-(0.5, 0.4): 0.2 / 0.25 = 0.8 with G0; P2 (0.5, 0.5)-(1, 0.9): 0.8
// with G1; P3 (0.25, 0.25)-(0.75, 0.75): 0.0625 / 0.4375 = 1/7 with each; P4 (0.6, 0.6)-(0.9, 0.9):
// 0.09 / 0.25 = 0.36 with G1.
struct MatchCase {
  std::vector<NormalizedBox> gt = {Box(0, 0, 0.5f, 0.5f, 1), Box(0.5f, 0.5f, 1, 1, 2)};
  std::vector<NormalizedBox> pred = {Box(0, 0, 0.5f, 0.5f), Box(0, 0, 0.5f, 0.4f),
                                     Box(0.5f, 0.5f, 1, 0.9f), Box(0.25f, 0.25f, 0.75f, 0.75f),
                                     Box(0.6f, 0.6f, 0.9f, 0.9f)};
};

void ExpectOverlaps(const Matches& m, const std::vector<float>& want) {
  ASSERT_EQ(m.overlaps.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(m.overlaps[i], want[i], 1e-6f) << i;
}

TEST(DetectionMatchTest, BipartiteTakesTheBestPairsOneGroundTruthEach) {
  MatchCase c;
  // P0-G0 (1.0) first, then the best left for G1: P2 (0.8). P1 loses G0 to P0.
  const Matches m = MatchBoxes(c.gt, c.pred, -1, MatchType::kBipartite, 0.5f, false);
  EXPECT_EQ(m.indices, (std::vector<int>{0, -1, 1, -1, -1}));
  ExpectOverlaps(m, {1, 0.8f, 0.8f, 1 / 7.f, 0.36f});
}

TEST(DetectionMatchTest, PerPredictionThenMatchesTheRestAboveTheThreshold) {
  MatchCase c;
  // After the bipartite pairs, P1 takes G0 (0.8 >= 0.5); P3 (1/7) and P4 (0.36) stay unmatched.
  Matches m = MatchBoxes(c.gt, c.pred, -1, MatchType::kPerPrediction, 0.5f, false);
  EXPECT_EQ(m.indices, (std::vector<int>{0, 0, 1, -1, -1}));
  // With 0.3, P4 takes G1 as well.
  m = MatchBoxes(c.gt, c.pred, -1, MatchType::kPerPrediction, 0.3f, false);
  EXPECT_EQ(m.indices, (std::vector<int>{0, 0, 1, -1, 1}));
  ExpectOverlaps(m, {1, 0.8f, 0.8f, 1 / 7.f, 0.36f});
}

TEST(DetectionMatchTest, ALabelLimitsTheGroundTruthAndCrossingBoxesAreIgnored) {
  MatchCase c;
  // Class 2 only: G1 (index 1) goes to P2; overlaps with G0 no longer count.
  Matches m = MatchBoxes(c.gt, c.pred, 2, MatchType::kBipartite, 0.5f, false);
  EXPECT_EQ(m.indices, (std::vector<int>{-1, -1, 1, -1, -1}));
  ExpectOverlaps(m, {0, 0, 0.8f, 1 / 7.f, 0.36f});
  // No ground truth of class 3: nothing matched, nothing overlapping.
  m = MatchBoxes(c.gt, c.pred, 3, MatchType::kPerPrediction, 0.5f, false);
  EXPECT_EQ(m.indices, std::vector<int>(5, -1));
  // A prediction crossing the image's edge is marked -2 and never matched.
  c.pred[0].xmin = -0.01f;
  m = MatchBoxes(c.gt, c.pred, -1, MatchType::kPerPrediction, 0.5f, true);
  EXPECT_EQ(m.indices, (std::vector<int>{-2, 0, 1, -1, -1}));
  EXPECT_EQ(m.overlaps[0], 0.f);
}

// The fork's NMS written plainly, as the reference: the full overlap matrix, candidates by a
// stable sort, the adaptive threshold.
std::vector<int> BruteForceNms(const std::vector<NormalizedBox>& boxes,
                               const std::vector<float>& scores, const NmsSettings& s) {
  const int n = static_cast<int>(boxes.size());
  std::vector<std::vector<float>> iou(n, std::vector<float>(n));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) iou[i][j] = JaccardOverlap(boxes[i], boxes[j]);
  }
  std::vector<int> order;
  for (int i = 0; i < n; ++i) {
    if (scores[i] > s.score_threshold) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  if (s.top_k >= 0 && s.top_k < static_cast<int>(order.size())) order.resize(s.top_k);
  std::vector<int> kept;
  float threshold = s.nms_threshold;
  for (int i : order) {
    bool suppressed = false;
    for (int k : kept) suppressed = suppressed || iou[i][k] > threshold;
    if (suppressed) continue;
    kept.push_back(i);
    if (s.eta < 1 && threshold > 0.5f) threshold *= s.eta;
  }
  return kept;
}

TEST(DetectionNmsTest, AgreesWithABruteForceReferenceOnRandomBoxes) {
  std::mt19937 rng(20240);
  std::uniform_real_distribution<float> unit(0, 1);
  const NmsSettings settings[] = {{0.f, 0.45f, 1.f, -1},  {0.3f, 0.45f, 1.f, -1},
                                  {0.1f, 0.7f, 0.9f, -1}, {0.f, 0.3f, 1.f, 5},
                                  {0.5f, 0.f, 1.f, 10},   {-1.f, 1.f, 0.5f, 3}};
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<NormalizedBox> boxes(60);
    std::vector<float> scores(60);
    for (int i = 0; i < 60; ++i) {
      const float x = unit(rng), y = unit(rng);
      boxes[i] = Box(x, y, x + 0.3f * unit(rng), y + 0.3f * unit(rng));
      // Few distinct scores, so that ties occur.
      scores[i] = std::round(unit(rng) * 10) / 10;
    }
    for (const NmsSettings& s : settings) {
      EXPECT_EQ(ApplyNms(boxes, scores, s), BruteForceNms(boxes, scores, s)) << trial;
    }
  }
}

TEST(DetectionNmsTest, HandCaseWithThresholdTopKAndNaN) {
  // B0 and B1 overlap 0.8 x 1 / 1 = 0.8; B2 is apart; B3 is below the score threshold; B4's
  // score is NaN (never a candidate).
  const std::vector<NormalizedBox> boxes = {Box(0, 0, 1, 1), Box(0, 0, 0.8f, 1), Box(2, 2, 3, 3),
                                            Box(5, 5, 6, 6), Box(7, 7, 8, 8)};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> scores = {0.8f, 0.9f, 0.5f, 0.05f, nan};
  EXPECT_EQ(ApplyNms(boxes, scores, {0.1f, 0.5f, 1, -1}), (std::vector<int>{1, 2}));
  EXPECT_EQ(ApplyNms(boxes, scores, {0.1f, 0.85f, 1, -1}), (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(ApplyNms(boxes, scores, {0.1f, 0.85f, 1, 2}), (std::vector<int>{1, 0}));
  EXPECT_EQ(ApplyNms(boxes, scores, {0.f, 0.5f, 1, -1}), (std::vector<int>{1, 2, 3}));
}

std::vector<ScoredDetection> Hits(const std::vector<std::pair<float, bool>>& list) {
  std::vector<ScoredDetection> out;
  for (const auto& [score, tp] : list) out.push_back({score, tp});
  return out;
}

TEST(DetectionApTest, ElevenPointByHand) {
  // Given out of order; by score: TP, FP, TP, FP with 3 positives:
  // precision 1, 1/2, 2/3, 1/2; recall 1/3, 1/3, 2/3, 2/3.
  // Largest precision at recall >= r: r = 0 .. 0.3: 1; r = 0.4 .. 0.6: 2/3; r = 0.7 .. 1: 0.
  // AP = (4 x 1 + 3 x 2/3) / 11 = 6/11.
  const auto hits = Hits({{0.7f, true}, {0.9f, true}, {0.6f, false}, {0.8f, false}});
  StatusOr<PrecisionRecall> pr = ComputeAveragePrecision(hits, 3, ApVersion::kElevenPoint);
  ASSERT_TRUE(pr.ok()) << pr.status().message();
  EXPECT_NEAR(pr->average_precision, 6 / 11.f, 1e-6f);
  EXPECT_EQ(pr->precision, (std::vector<float>{1.f, 0.5f, 2 / 3.f, 0.5f}));
  EXPECT_EQ(pr->recall, (std::vector<float>{1 / 3.f, 1 / 3.f, 2 / 3.f, 2 / 3.f}));
  // The same list: MaxIntegral 2/3 x 1/3 + 1 x 1/3 = 5/9; Integral 1 x 1/3 + 2/3 x 1/3 = 5/9.
  EXPECT_NEAR(ComputeAveragePrecision(hits, 3, ApVersion::kMaxIntegral)->average_precision, 5 / 9.f,
              1e-6f);
  EXPECT_NEAR(ComputeAveragePrecision(hits, 3, ApVersion::kIntegral)->average_precision, 5 / 9.f,
              1e-6f);
}

TEST(DetectionApTest, MaxIntegralUsesTheEnvelopeIntegralTheRawCurve) {
  // FP, TP, TP with 2 positives: precision 0, 1/2, 2/3; recall 0, 1/2, 1.
  // Integral: 1/2 x 1/2 + 2/3 x 1/2 = 7/12.
  // MaxIntegral: the envelope is 2/3 everywhere: 2/3 x 1/2 + 2/3 x 1/2 = 2/3.
  // 11point: 2/3 at every r: 2/3.
  const auto hits = Hits({{0.9f, false}, {0.8f, true}, {0.7f, true}});
  EXPECT_NEAR(ComputeAveragePrecision(hits, 2, ApVersion::kIntegral)->average_precision, 7 / 12.f,
              1e-6f);
  EXPECT_NEAR(ComputeAveragePrecision(hits, 2, ApVersion::kMaxIntegral)->average_precision, 2 / 3.f,
              1e-6f);
  EXPECT_NEAR(ComputeAveragePrecision(hits, 2, ApVersion::kElevenPoint)->average_precision, 2 / 3.f,
              1e-6f);
}

TEST(DetectionApTest, EmptyInputsAndRefusals) {
  EXPECT_EQ(ComputeAveragePrecision({}, 3, ApVersion::kIntegral)->average_precision, 0.f);
  EXPECT_EQ(
      ComputeAveragePrecision(Hits({{0.5f, false}}), 0, ApVersion::kIntegral)->average_precision,
      0.f);
  EXPECT_EQ(ComputeAveragePrecision(Hits({{0.5f, true}, {0.4f, true}}), 1, ApVersion::kIntegral)
                .status()
                .message(),
            "2 true positives but only 1 positives");
  EXPECT_EQ(ComputeAveragePrecision(Hits({{std::nanf(""), true}}), 1, ApVersion::kIntegral)
                .status()
                .message(),
            "a detection's score is NaN");
  EXPECT_EQ(ComputeAveragePrecision({}, -1, ApVersion::kIntegral).status().message(),
            "the number of positives is -1");
  EXPECT_EQ(ParseApVersion("VOC").status().message(),
            "unknown ap_version \"VOC\" (known: \"11point\", \"MaxIntegral\", \"Integral\")");
  EXPECT_EQ(ParseApVersion("MaxIntegral").value(), ApVersion::kMaxIntegral);
}

}  // namespace
}  // namespace dtrain::detection
