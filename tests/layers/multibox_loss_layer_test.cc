// MultiBoxLoss (SSD's training loss): a hand-worked batch of two images through matching, mining
// (MAX_NEGATIVE, HARD_EXAMPLE), encoding and every normalisation; numeric gradient checks of the
// loc and conf bottoms under each loss type and location sharing; every refusal's message; and a
// net with PriorBox that `dtrain check` accepts.
#include "layers/multibox_loss_layer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"
#include "testing/net_training.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

std::string MultiBox(const std::string& param, const std::string& extra = "") {
  return R"(name: "loss" type: "MultiBoxLoss" )" + extra + " multibox_loss_param { " + param + " }";
}

const float kLn2 = std::log(2.f), kLn3 = std::log(3.f);

// The hand-worked batch. Four priors, CORNER codes, variances 0.1:
//   P0 (0, 0)-(0.4, 0.4)   P1 (0.5, 0.5)-(1, 1)   P2 (0.1, 0.1)-(0.5, 0.5)   P3 (0.6, 0)-(1, 0.4)
// Three classes, 0 the background. Ground truth (the 4th row is padding, item -1):
//   image 0: A (0, 0)-(0.4, 0.4) class 1, B (0.5, 0.5)-(0.9, 0.9) class 2
//   image 1: C (0.6, 0)-(1, 0.5) class 1
// Overlaps: A-P0 1; A-P2 0.09 / 0.23 = 0.391; B-P1 0.16 / 0.25 = 0.64; C-P3 0.16 / 0.2 = 0.8;
// every other pair 0 (B-P2 and C-P1 only touch). Matches (PER_PREDICTION, 0.5): image 0 P0-A,
// P1-B; image 1 P3-C.
// Regression targets (gt - prior) / 0.1: P0-A (0, 0, 0, 0), P1-B (0, 0, -1, -1),
// P3-C (0, 0, 0, 1). The predictions below give d = (0.5, 0, 0, 0), (0, 0, 0, 1), (0, 0, 0, 2):
// smooth L1 0.125 + (1 - 0.5) + (2 - 0.5) = 2.125.
// Class scores, per prior (softmax towards the class named):
//   image 0: P0 (0, ln 2, 0) class 1: p 2/4, loss ln 2; P1 (0, 0, 0) class 2: ln 3;
//            P2 (0, 0, 0); P3 (0, ln 3, 0) background: p 1/5, loss ln 5
//   image 1: P0 (ln 2, 0, 0) background: ln 2; P1 (0, 0, 0) background: ln 3;
//            P2 (ln 3, 0, 0) background: ln 5/3; P3 (0, ln 3, 0) class 1: ln 5/3
struct Batch {
  Tensor loc{std::vector<int>{2, 16}};
  Tensor conf{std::vector<int>{2, 12}};
  Tensor priors{std::vector<int>{1, 2, 16}};
  Tensor truth{std::vector<int>{1, 1, 4, 8}};
  Tensor top;
  Batch() {
    FillValues(&loc, {0.5f, 0,    0,    0,    0,    0,     -1,   0,    0.3f, -0.2f, 0.1f,
                      0.4f, 0.2f, 0.2f, 0.2f, 0.2f, 0.1f,  0.1f, 0.1f, 0.1f, -0.3f, 0.2f,
                      0,    0.1f, 0.4f, 0,    0,    -0.4f, 0,    0,    0,    3});
    FillValues(&conf, {0,    kLn2, 0, 0, 0, 0, 0,    0, 0, 0, kLn3, 0,  //
                       kLn2, 0,    0, 0, 0, 0, kLn3, 0, 0, 0, kLn3, 0});
    FillValues(&priors, {0,    0,    0.4f, 0.4f, 0.5f, 0.5f, 1,    1,    0.1f, 0.1f, 0.5f,
                         0.5f, 0.6f, 0,    1,    0.4f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f,
                         0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f});
    FillValues(&truth, {0,  1,  0,  0,    0,    0.4f, 0.4f, 0,  //
                        0,  2,  0,  0.5f, 0.5f, 0.9f, 0.9f, 0,  //
                        1,  1,  0,  0.6f, 0,    1,    0.5f, 0,  //
                        -1, -1, -1, -1,   -1,   -1,   -1,   -1});
  }
  TensorVec bottoms() { return {&loc, &conf, &priors, &truth}; }
  TensorVec tops() { return {&top}; }
};

// Sets up and runs one forward; the status of whichever failed.
Status SetupAndForward(Layer* layer, Batch* b) {
  if (layer == nullptr) return InvalidArgument("not built");
  DT_RETURN_IF_ERROR(layer->Setup(b->bottoms(), b->tops()));
  return layer->Forward(b->bottoms(), b->tops(), nullptr);
}

float Loss(const std::string& prototxt, Batch* b, int* matches = nullptr,
           int* negatives = nullptr) {
  auto layer = MakeLayer(prototxt);
  Status s = SetupAndForward(layer.get(), b);
  EXPECT_TRUE(s.ok()) << s.message();
  auto* multibox = dynamic_cast<MultiBoxLossLayer*>(layer.get());
  if (matches != nullptr) *matches = multibox->num_matches();
  if (negatives != nullptr) *negatives = multibox->num_negatives();
  return b->top.data()[0];
}

// The default settings (MAX_NEGATIVE, PER_PREDICTION at 0.5, VALID) with neg_pos_ratio 1 and
// neg_overlap 0.35: image 0 has 2 positives, so up to 2 negatives among the unmatched priors
// whose overlap is below 0.35: P3 only (P2's 0.391 is not below); image 1 has 1 positive, so 1
// negative among P0, P1, P2: the highest background loss, P1 (ln 3 > ln 2 > ln 5/3).
// conf = ln 2 + ln 3 + ln 5 (image 0: P0, P1, negative P3) + ln 5/3 + ln 3 (image 1: P3,
// negative P1) = 5.010635; loc = 2.125; 3 matches: (2.125 + 5.010635) / 3 = 2.378545.
const char* kHandParam = "num_classes: 3 neg_pos_ratio: 1 neg_overlap: 0.35";

TEST(MultiBoxLossLayerTest, HandCaseWithMaxNegativeMining) {
  Batch b;
  int matches = 0, negatives = 0;
  EXPECT_NEAR(Loss(MultiBox(kHandParam), &b, &matches, &negatives), 2.378545f, 1e-5f);
  EXPECT_EQ(matches, 3);
  EXPECT_EQ(negatives, 2);
  EXPECT_EQ(b.top.num_axes(), 0);
  // loc_weight 2: (2 x 2.125 + 5.010635) / 3.
  EXPECT_NEAR(Loss(MultiBox(std::string(kHandParam) + " loc_weight: 2"), &b), 3.086878f, 1e-5f);
}

TEST(MultiBoxLossLayerTest, HandCaseGradients) {
  // Top diff 1, n = 3. loc: f'(d) / 3 at the matches: image 0 P0 xmin 0.5 / 3, P1 ymax 1 / 3
  // (|d| = 1 is past the bend: sign), image 1 P3 ymax 1 / 3; 0 elsewhere. conf: (p - onehot) / 3
  // at the chosen priors: image 0 P0 (0.25, -0.5, 0.25) / 3; image 0 P2 not chosen: 0; image 1
  // P1 (negative) (1/3 - 1, 1/3, 1/3) / 3.
  Batch b;
  auto layer = MakeLayer(MultiBox(kHandParam));
  ASSERT_TRUE(SetupAndForward(layer.get(), &b).ok());
  b.top.mutable_diff()[0] = 1;
  layer->Backward(b.tops(), {true, true, false, false}, b.bottoms());
  std::vector<float> want_loc(32, 0.f);
  want_loc[0] = 0.5f / 3;
  want_loc[7] = 1.f / 3;
  want_loc[16 + 15] = 1.f / 3;
  for (int i = 0; i < 32; ++i) EXPECT_NEAR(b.loc.diff()[i], want_loc[i], 1e-6f) << i;
  const float* conf = b.conf.diff();
  EXPECT_NEAR(conf[0], 0.25f / 3, 1e-6f);
  EXPECT_NEAR(conf[1], -0.5f / 3, 1e-6f);
  EXPECT_NEAR(conf[2], 0.25f / 3, 1e-6f);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(conf[6 + c], 0.f);  // image 0 P2
  EXPECT_NEAR(conf[12 + 3], -2.f / 9, 1e-6f);
  EXPECT_NEAR(conf[12 + 4], 1.f / 9, 1e-6f);
  EXPECT_EQ(conf[12 + 0], 0.f);  // image 1 P0: not chosen
}

TEST(MultiBoxLossLayerTest, WithoutMiningEveryPriorCounts) {
  // mining_type NONE: all 8 priors, unmatched towards the background: image 0 ln 2, ln 3,
  // P2 ln 3, P3 ln 5; image 1 ln 2, ln 3, ln 5/3, ln 5/3: 7.313220. FULL divides by N P = 8:
  // (2.125 + 7.313220) / 8 = 1.179778.
  Batch b;
  EXPECT_NEAR(
      Loss(MultiBox("num_classes: 3 mining_type: NONE", "loss_param { normalization: FULL }"), &b),
      1.179778f, 1e-5f);
}

TEST(MultiBoxLossLayerTest, EveryNormalization) {
  // The hand case's sum, 7.135635, over 2 (BATCH_SIZE, and the legacy normalize: false), 1
  // (NONE), 4 (PRE_FIXED 4), 3 matches (VALID, and normalize: true).
  const float sum = 7.135635f;
  const std::pair<const char*, float> cases[] = {
      {"normalization: BATCH_SIZE", sum / 2},
      {"normalize: false", sum / 2},
      {"normalization: NONE", sum},
      {"normalization: PRE_FIXED pre_fixed_normalizer: 4", sum / 4},
      {"normalization: VALID", sum / 3},
      {"normalize: true", sum / 3}};
  for (const auto& [loss_param, want] : cases) {
    Batch b;
    EXPECT_NEAR(Loss(MultiBox(kHandParam, std::string("loss_param { ") + loss_param + " }"), &b),
                want, 1e-5f)
        << loss_param;
  }
}

TEST(MultiBoxLossLayerTest, AnEmptyBatchHasLossZero) {
  // A single ground-truth row of -1: no objects, so no positives and no mined negatives.
  Batch b;
  b.truth.Reshape({1, 1, 1, 8});
  FillValues(&b.truth, {-1, -1, -1, -1, -1, -1, -1, -1});
  int matches = -1;
  EXPECT_EQ(Loss(MultiBox(kHandParam), &b, &matches), 0.f);
  EXPECT_EQ(matches, 0);
}

TEST(MultiBoxLossLayerTest, HardExampleMiningByHand) {
  // sample_size 2 per image; each prior's loss is its confidence loss plus, matched, its smooth L1:
  //   image 0: P0 ln 2 + 0.125 = 0.818, P1 ln 3 + 0.5 = 1.599, P2 ln 3 = 1.099, P3 ln 5 = 1.609
  //            -> P3, P1: P0 is demoted, P3 becomes the negative
  //   image 1: P0 ln 2, P1 ln 3, P2 ln 5/3, P3 ln 5/3 + 1.5 = 2.011 -> P3 (stays), P1 negative
  // loc 0.5 + 1.5 = 2; conf ln 3 + ln 5 + ln 5/3 + ln 3 = 4.317488; 2 matches:
  // (2 + 4.317488) / 2 = 3.158744.
  Batch b;
  int matches = 0, negatives = 0;
  EXPECT_NEAR(Loss(MultiBox("num_classes: 3 mining_type: HARD_EXAMPLE sample_size: 2"), &b,
                   &matches, &negatives),
              3.158744f, 1e-5f);
  EXPECT_EQ(matches, 2);
  EXPECT_EQ(negatives, 2);
  // With NMS over the priors (none of the picked ones overlap) the picks are the same.
  EXPECT_NEAR(Loss(MultiBox("num_classes: 3 mining_type: HARD_EXAMPLE sample_size: 2 "
                            "use_prior_for_nms: true nms_param { nms_threshold: 0.3 top_k: -1 }"),
                   &b),
              3.158744f, 1e-5f);
  // nms_param without top_k: the fork reads top_k 0 and keeps no candidate, so nothing is
  // picked, every positive is demoted and the loss is 0.
  EXPECT_EQ(Loss(MultiBox("num_classes: 3 mining_type: HARD_EXAMPLE sample_size: 2 "
                          "nms_param { nms_threshold: 0.3 }"),
                 &b, &matches),
            0.f);
  EXPECT_EQ(matches, 0);
}

TEST(MultiBoxLossLayerTest, PropagateDownFalseLeavesItsTermOut) {
  // As the fork: the loc term counts only where the layer's propagate_down for bottom 0 is true
  // (or none is given): 5.010635 / 3.
  Batch b;
  EXPECT_NEAR(Loss(MultiBox(kHandParam,
                            "propagate_down: false propagate_down: true "
                            "propagate_down: false propagate_down: false"),
                   &b),
              1.670212f, 1e-5f);
}

TEST(MultiBoxLossLayerTest, EncodeVarianceInTargetKeepsTheForksGradient) {
  // Both sides divided by 0.1: predictions (5, 0, 0, 0), (0, 0, -10, 0), (0, 0, 0, 30) against
  // the same targets: d = (5, 0, 0, 0), (0, 0, -9, 1), (0, 0, 0, 29): smooth L1 4.5 + 9 + 28.5
  // = 42; (42 + 5.010635) / 3 = 15.670212. The fork's gradient is sign(d) / 3 at image 0 P0
  // xmin, without the 1 / 0.1 of the division.
  Batch b;
  auto layer = MakeLayer(MultiBox(std::string(kHandParam) + " encode_variance_in_target: true"));
  ASSERT_TRUE(SetupAndForward(layer.get(), &b).ok());
  EXPECT_NEAR(b.top.data()[0], 15.670212f, 1e-4f);
  b.top.mutable_diff()[0] = 1;
  layer->Backward(b.tops(), {true, false, false, false}, b.bottoms());
  EXPECT_NEAR(b.loc.diff()[0], 1.f / 3, 1e-6f);
  EXPECT_NEAR(b.loc.diff()[6], -1.f / 3, 1e-6f);
}

// ---- numeric gradients ----------------------------------------------------------------------

// The hand batch with locations per class when !shared (P x 3 x 4 per image), random offsets
// and, where `random_conf`, random scores.
void CheckCase(const std::string& param, bool shared, bool random_conf, float loc_std = 0.7f) {
  Batch b;
  if (!shared) b.loc.Reshape({2, 48});
  testing::FillGaussian(&b.loc, 11, loc_std);
  if (random_conf) testing::FillGaussian(&b.conf, 12, 1.f);
  auto layer = MakeLayer(MultiBox(param));
  ASSERT_NE(layer, nullptr);
  testing::GradientCheckOptions options;
  options.bottoms = {0, 1};
  testing::CheckGradients(*layer, b.bottoms(), b.tops(), options);
}

TEST(MultiBoxLossLayerTest, GradientSoftmaxSmoothL1SharedMaxNegative) {
  CheckCase(kHandParam, true, false);
}

TEST(MultiBoxLossLayerTest, GradientLogisticL2SharedMaxNegative) {
  CheckCase(std::string(kHandParam) + " conf_loss_type: LOGISTIC loc_loss_type: L2", true, false);
}

TEST(MultiBoxLossLayerTest, GradientSoftmaxL2SharedWithoutMining) {
  CheckCase("num_classes: 3 mining_type: NONE loc_loss_type: L2", true, true);
}

TEST(MultiBoxLossLayerTest, GradientLogisticSmoothL1SharedWithoutMining) {
  CheckCase("num_classes: 3 mining_type: NONE conf_loss_type: LOGISTIC", true, true);
}

TEST(MultiBoxLossLayerTest, GradientSoftmaxSmoothL1NotShared) {
  CheckCase("num_classes: 3 mining_type: NONE share_location: false", false, true);
}

TEST(MultiBoxLossLayerTest, GradientLogisticL2NotShared) {
  CheckCase(
      "num_classes: 3 mining_type: NONE share_location: false conf_loss_type: LOGISTIC "
      "loc_loss_type: L2",
      false, true);
}

TEST(MultiBoxLossLayerTest, GradientHardExample) {
  CheckCase("num_classes: 3 mining_type: HARD_EXAMPLE sample_size: 2", true, false);
}

TEST(MultiBoxLossLayerTest, GradientMatchingDecodedPredictionsWithCenterSize) {
  // Small offsets move the decoded boxes by far less than any overlap's margin to a threshold.
  CheckCase(
      "num_classes: 3 use_prior_for_matching: false code_type: CENTER_SIZE neg_pos_ratio: 1 "
      "neg_overlap: 0.35",
      true, false, 0.1f);
  CheckCase("num_classes: 3 use_prior_for_matching: false mining_type: NONE share_location: false",
            false, true, 0.1f);
}

TEST(MultiBoxLossLayerTest, GradientBpInsideWithAPriorAcrossTheEdge) {
  // P1 reaches past the image (to 1.1): its xmax and ymax add neither loss nor gradient.
  Batch b;
  b.priors.mutable_data()[6] = 1.1f;
  b.priors.mutable_data()[7] = 1.1f;
  testing::FillGaussian(&b.loc, 11, 0.7f);
  auto layer = MakeLayer(MultiBox(std::string(kHandParam) + " bp_inside: true"));
  testing::GradientCheckOptions options;
  options.bottoms = {0, 1};
  testing::CheckGradients(*layer, b.bottoms(), b.tops(), options);
  EXPECT_EQ(b.loc.diff()[6], 0.f);
  EXPECT_EQ(b.loc.diff()[7], 0.f);
  EXPECT_NE(b.loc.diff()[5], 0.f);
}

// ---- refusals -----------------------------------------------------------------------------

std::string Refusal(const std::string& prototxt, Batch* b) {
  auto layer = MakeLayer(prototxt);
  Status s = SetupAndForward(layer.get(), b);
  return s.ok() ? "ok" : s.message();
}

std::string Refusal(const std::string& param) {
  Batch b;
  return Refusal(MultiBox(param), &b);
}

TEST(MultiBoxLossLayerTest, BadParametersAreRefusedByName) {
  const std::string at = "layer 'loss' (MultiBoxLoss): multibox_loss_param.";
  EXPECT_EQ(Refusal(""), at + "num_classes is required");
  EXPECT_EQ(Refusal("num_classes: 0"), at + "num_classes must be at least 1, got 0");
  EXPECT_EQ(Refusal("num_classes: 4294967295"),
            at + "num_classes is 4294967295, more than a dimension may be (2147483647)");
  EXPECT_EQ(Refusal("num_classes: 3 background_label_id: 3"),
            at + "background_label_id 3 must be below num_classes 3");
  EXPECT_EQ(Refusal("num_classes: 3 loc_weight: nan"), at + "loc_weight is nan");
  EXPECT_EQ(Refusal("num_classes: 3 overlap_threshold: nan"), at + "overlap_threshold is NaN");
  EXPECT_EQ(Refusal("num_classes: 3 neg_overlap: nan"), at + "neg_overlap is NaN");
  EXPECT_EQ(Refusal("num_classes: 3 neg_pos_ratio: -1"),
            at + "neg_pos_ratio must be finite and not negative, got -1.000000");
  EXPECT_EQ(Refusal("num_classes: 3 neg_pos_ratio: inf"),
            at + "neg_pos_ratio must be finite and not negative, got inf");
  EXPECT_EQ(Refusal("num_classes: 3 do_neg_mining: false"),
            at + "do_neg_mining (deprecated) is false but mining_type is MAX_NEGATIVE; give "
                 "mining_type alone (NONE for no mining)");
  EXPECT_EQ(Refusal("num_classes: 3 do_neg_mining: true mining_type: NONE"),
            at + "do_neg_mining (deprecated) is true but mining_type is NONE; give mining_type "
                 "alone (NONE for no mining)");
  EXPECT_EQ(Refusal("num_classes: 3 share_location: false"),
            at + "mining_type MAX_NEGATIVE needs share_location (the fork mines only shared "
                 "locations); set mining_type: NONE or share_location: true");
  EXPECT_EQ(Refusal("num_classes: 3 mining_type: HARD_EXAMPLE sample_size: 0"),
            at + "sample_size must be positive for HARD_EXAMPLE, got 0");
  EXPECT_EQ(Refusal("num_classes: 3 map_object_to_agnostic: true"),
            at + "map_object_to_agnostic needs num_classes 2 and background_label_id 0 (every "
                 "object becomes class 1), got num_classes 3 and background_label_id 0");
  EXPECT_EQ(Refusal("num_classes: 3 nms_param { nms_threshold: nan }"),
            at + "nms_param.nms_threshold is NaN");
  // The deprecated switch agreeing with mining_type is accepted.
  EXPECT_EQ(Refusal("num_classes: 3 do_neg_mining: true"), "ok");
}

TEST(MultiBoxLossLayerTest, BottomsThatDisagreeAreRefused) {
  const std::string at = "layer 'loss' (MultiBoxLoss): ";
  const std::string prototxt = MultiBox(kHandParam);
  Batch b;
  b.priors.Reshape({1, 1, 16});
  EXPECT_EQ(Refusal(prototxt, &b),
            at + "bottom 2 (priors) must be (1, 2, P * 4) as PriorBox writes it, got 1 1 16 (16)");
  Batch t;
  t.truth.Reshape({1, 1, 4, 7});
  EXPECT_EQ(Refusal(prototxt, &t),
            at + "bottom 3 (ground truth) must be (1, 1, G, 8), got 1 1 4 7 (28)");
  Batch n;
  n.conf.Reshape({1, 12});
  EXPECT_EQ(Refusal(prototxt, &n),
            at + "bottoms 0 (loc) and 1 (conf) must have the same number of images, got 2 16 "
                 "(32) and 1 12 (12)");
  Batch l;
  l.loc.Reshape({2, 12});
  EXPECT_EQ(Refusal(prototxt, &l),
            at + "Number of priors must match number of location predictions: bottom 0 (loc) 2 "
                 "12 (24) has 12 values per image, 4 priors x 1 location classes x 4 = 16");
  Batch s;  // not shared: 4 priors x 3 classes x 4 offsets
  EXPECT_EQ(Refusal(MultiBox("num_classes: 3 share_location: false mining_type: NONE"), &s),
            at + "Number of priors must match number of location predictions: bottom 0 (loc) 2 "
                 "16 (32) has 16 values per image, 4 priors x 3 location classes x 4 = 48");
  Batch c;
  c.conf.Reshape({2, 8});
  EXPECT_EQ(Refusal(prototxt, &c),
            at + "Number of priors must match number of confidence predictions: bottom 1 (conf) "
                 "2 8 (16) has 8 values per image, 4 priors x 3 classes = 12");
}

TEST(MultiBoxLossLayerTest, HostileGroundTruthAndPriorsAreErrorsNotCrashes) {
  const std::string at = "layer 'loss' (MultiBoxLoss): ";
  const std::string prototxt = MultiBox(kHandParam);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Batch bg;
  bg.truth.mutable_data()[8 + 1] = 0;
  EXPECT_EQ(Refusal(prototxt, &bg),
            at + "bottom 3 (ground truth) row 1 has the background label 0 (background_label_id)");
  Batch big;
  big.truth.mutable_data()[8 + 1] = 7;
  EXPECT_EQ(Refusal(prototxt, &big),
            at + "bottom 3 (ground truth) row 1: label 7 is outside [0, 3) (num_classes)");
  Batch item;
  item.truth.mutable_data()[16] = 2;
  EXPECT_EQ(Refusal(prototxt, &item),
            at + "bottom 3 (ground truth) row 2: item 2 is outside the batch [0, 2)");
  Batch label_nan;
  label_nan.truth.mutable_data()[1] = nan;
  EXPECT_EQ(Refusal(prototxt, &label_nan),
            at + "bottom 3 (ground truth) row 0: the label nan is not a class");
  // CENTER_SIZE decodes predictions relative to the priors when matching them: a flat prior is
  // refused, as the fork aborts.
  Batch flat;
  flat.priors.mutable_data()[2] = 0;  // P0's xmax = its xmin
  EXPECT_EQ(Refusal(MultiBox("num_classes: 3 code_type: CENTER_SIZE use_prior_for_matching: "
                             "false"),
                    &flat),
            at + "bottom 2 (priors), prior 0: a prior box of width 0.000000 and height 0.400000 "
                 "(both must be positive to decode offsets relative to it)");
  // A matched prior of variance 0 cannot encode its target.
  Batch zero;
  zero.priors.mutable_data()[16] = 0;  // P0's first variance
  EXPECT_EQ(Refusal(prototxt, &zero),
            at + "image 0: prior 0, matched to a ground truth: a prior variance of 0.000000 (must "
                 "be positive)");
  // NaN boxes, scores and offsets: no crash. The NaN box (A) matches nothing: image 0 keeps
  // P1-B and mines 1 negative among P0 (ln 4), P2 (ln 3), P3 (ln 5): P3; image 1 as before.
  // (0.5 + 1.5 + ln 3 + ln 5 + ln 5/3 + ln 3) / 2 = 3.158744. NaN scores make the loss NaN, for
  // the net's divergence check to name.
  Batch boxes;
  for (int k = 3; k < 7; ++k) boxes.truth.mutable_data()[k] = nan;
  int matches = 0;
  EXPECT_NEAR(Loss(prototxt, &boxes, &matches), 3.158744f, 1e-5f);
  EXPECT_EQ(matches, 2);
  Batch scores;
  for (int i = 0; i < 24; ++i) scores.conf.mutable_data()[i] = nan;
  for (int i = 0; i < 32; ++i) scores.loc.mutable_data()[i] = nan;
  EXPECT_TRUE(std::isnan(Loss(MultiBox("num_classes: 3 mining_type: HARD_EXAMPLE sample_size: 2 "
                                       "use_prior_for_matching: false nms_param { top_k: -1 }"),
                              &scores)));
  EXPECT_TRUE(std::isnan(Loss(prototxt, &scores)));
}

TEST(MultiBoxLossLayerTest, OnlyLocAndConfTakeGradients) {
  auto layer = MakeLayer(MultiBox(kHandParam));
  EXPECT_TRUE(layer->BottomHasGradient(0));
  EXPECT_TRUE(layer->BottomHasGradient(1));
  EXPECT_FALSE(layer->BottomHasGradient(2));
  EXPECT_FALSE(layer->BottomHasGradient(3));
  EXPECT_FALSE(layer->AllowForceBackward(2));
  EXPECT_FALSE(layer->AllowForceBackward(3));
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
}

// ---- in a net -----------------------------------------------------------------------------

// An SSD head in miniature: a 2 x 2 feature map with one prior per cell from PriorBox, a 1x1
// convolution each for loc and conf (flattened as SSD's Permute + Flatten would), and the ground
// truth of one object per image. %s is where the priors come from.
const char* kNet = R"(
name: "ssd_head"
layer { name: "data" type: "Input" top: "image" top: "feature" top: "label"
        input_param { shape { dim: 2 dim: 3 dim: 8 dim: 8 } shape { dim: 2 dim: 4 dim: 2 dim: 2 }
                      shape { dim: 1 dim: 1 dim: 2 dim: 8 } } }
layer { name: "loc" type: "Convolution" bottom: "feature" top: "loc"
        convolution_param { num_output: 4 kernel_size: 1
                            weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loc_perm" type: "Permute" bottom: "loc" top: "loc_perm"
        permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "loc_flat" type: "Flatten" bottom: "loc_perm" top: "loc_flat" }
layer { name: "conf" type: "Convolution" bottom: "feature" top: "conf"
        convolution_param { num_output: 3 kernel_size: 1
                            weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "conf_perm" type: "Permute" bottom: "conf" top: "conf_perm"
        permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "conf_flat" type: "Flatten" bottom: "conf_perm" top: "conf_flat" }
%s
layer { name: "mbox_loss" type: "MultiBoxLoss" bottom: "loc_flat" bottom: "conf_flat"
        bottom: "priors" bottom: "label" top: "mbox_loss"
        multibox_loss_param { num_classes: 3 neg_pos_ratio: 1 } }
)";

const char* kPriorBox =
    R"(layer { name: "priorbox" type: "PriorBox" bottom: "feature" bottom: "image"
        top: "priors" prior_box_param { min_size: 4 clip: true variance: 0.1 } })";

std::string NetText(const char* priors) {
  std::string text = kNet;
  text.replace(text.find("%s"), 2, priors);
  return text;
}

TEST(MultiBoxLossNetTest, TrainsInANetWithPriorBoxAndCheckAcceptsIt) {
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(NetText(kPriorBox), "net", &param).ok());
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1);
  ASSERT_TRUE(net.ok()) << net.status().message();
  // Image 0: an object over the top-left cell's prior (0, 0)-(0.5, 0.5), class 1; image 1: one
  // over the bottom-right cell's, class 2.
  Tensor* label = (*net)->blob_by_name("label");
  FillValues(label,
             {0, 1, 0, 0.05f, 0.05f, 0.45f, 0.45f, 0, 1, 2, 0, 0.55f, 0.55f, 0.95f, 0.95f, 0});
  testing::FillGaussian((*net)->blob_by_name("feature"), 3, 1.f);
  const auto [first, last] = testing::TrainWithPlainSgd(**net, 20, 0.5f);
  EXPECT_LT(last, first);

  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), NetText(kPriorBox));
  auto result = testing::RunDtrain("check --model=" + dir.Path("net.prototxt"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

TEST(MultiBoxLossNetTest, PriorsThatWouldNeedAGradientAreAnErrorNamingTheBottom) {
  // Priors computed by a learned layer: the loss gives them no gradient, as in Caffe.
  const char* learned = R"(layer { name: "prior_ip" type: "InnerProduct" bottom: "feature"
        top: "prior_flat" inner_product_param { num_output: 32 } }
layer { name: "prior_shape" type: "Reshape" bottom: "prior_flat" top: "priors"
        reshape_param { shape { dim: 1 dim: 2 dim: 16 } } })";
  std::string text = NetText(learned);
  // The InnerProduct's output has 2 rows (one per image), which the Reshape refuses to fit into
  // one; give it one image's worth.
  text.replace(text.find("dim: 2 dim: 4 dim: 2 dim: 2"), 27, "dim: 1 dim: 4 dim: 2 dim: 2");
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(text, "net", &param).ok());
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1);
  ASSERT_FALSE(net.ok());
  EXPECT_EQ(net.status().message(),
            "layer 'mbox_loss' (MultiBoxLoss) gives no gradient to its bottom 2 (as in Caffe), but "
            "bottom 'priors' needs one; set propagate_down: false for it");
}

}  // namespace
}  // namespace dtrain
