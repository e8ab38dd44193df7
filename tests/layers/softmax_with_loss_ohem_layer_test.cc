// SoftmaxWithLossOHEM (R-FCN's classification loss with a per-ROI top): hand-worked losses with
// and without ignored labels, agreement with SoftmaxWithLoss, a numeric gradient check, and every
// refusal's message.
#include "layers/softmax_with_loss_ohem_layer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

const float kLn2 = std::log(2.f), kLn3 = std::log(3.f);

// Three regions, two classes, R-FCN's shapes: scores (3, 2, 1, 1), labels (3, 1, 1, 1).
//   region 0: scores (0, 0)    -> p = (1/2, 1/2), label 1: -ln(1/2) = ln 2
//   region 1: scores (ln 3, 0) -> p = (3/4, 1/4), label 0: -ln(3/4) = ln 4 - ln 3
//   region 2: scores (ln 3, 0) -> p = (3/4, 1/4), label 1: -ln(1/4) = ln 4
// Sum ln 2 + ln 4 - ln 3 + ln 4 = 5 ln 2 - ln 3; VALID divides by the 3 valid labels.
struct Case {
  Tensor scores{{3, 2, 1, 1}}, labels{{3, 1, 1, 1}};
  Tensor loss, prob, per_roi;
  Case() {
    FillValues(&scores, {0, 0, kLn3, 0, kLn3, 0});
    FillValues(&labels, {1, 0, 1});
  }
  // Runs a layer with `extra` fields and three tops; false (with a test failure) on an error.
  bool Run(const std::string& extra) {
    auto layer = MakeLayer(R"(name: "cls" type: "SoftmaxWithLossOHEM" )" + extra);
    Status s = layer->Setup({&scores, &labels}, {&loss, &prob, &per_roi});
    if (s.ok()) s = layer->Forward({&scores, &labels}, {&loss, &prob, &per_roi}, nullptr);
    EXPECT_TRUE(s.ok()) << s.message();
    return s.ok();
  }
};

TEST(SoftmaxWithLossOHEMLayerTest, LossProbabilitiesAndPerRoiLossByHand) {
  Case c;
  ASSERT_TRUE(c.Run(""));
  EXPECT_EQ(c.loss.num_axes(), 0);
  EXPECT_NEAR(c.loss.data()[0], (5 * kLn2 - kLn3) / 3, 1e-6);
  EXPECT_EQ(c.prob.shape(), c.scores.shape());
  const std::vector<float> prob = testing::Values(c.prob);
  const std::vector<float> expected_prob = {0.5f, 0.5f, 0.75f, 0.25f, 0.75f, 0.25f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(prob[i], expected_prob[i], 1e-6) << i;
  EXPECT_EQ(c.per_roi.shape(), c.labels.shape());  // Intel's: shaped like the labels
  EXPECT_NEAR(c.per_roi.data()[0], kLn2, 1e-6);
  EXPECT_NEAR(c.per_roi.data()[1], 2 * kLn2 - kLn3, 1e-6);
  EXPECT_NEAR(c.per_roi.data()[2], 2 * kLn2, 1e-6);
}

TEST(SoftmaxWithLossOHEMLayerTest, NormalizationDividesTheLossNotThePerRoiLoss) {
  // The sum 5 ln 2 - ln 3 over PRE_FIXED 2 (R-FCN's box loss uses PRE_FIXED 128), NONE 1,
  // BATCH_SIZE 3.
  Case c;
  ASSERT_TRUE(c.Run("loss_param { normalization: PRE_FIXED pre_fixed_normalizer: 2 }"));
  EXPECT_NEAR(c.loss.data()[0], (5 * kLn2 - kLn3) / 2, 1e-6);
  EXPECT_NEAR(c.per_roi.data()[2], 2 * kLn2, 1e-6);
  ASSERT_TRUE(c.Run("loss_param { normalization: NONE }"));
  EXPECT_NEAR(c.loss.data()[0], 5 * kLn2 - kLn3, 1e-6);
  ASSERT_TRUE(c.Run("loss_param { normalization: BATCH_SIZE }"));
  EXPECT_NEAR(c.loss.data()[0], (5 * kLn2 - kLn3) / 3, 1e-6);
}

TEST(SoftmaxWithLossOHEMLayerTest, IgnoredLabelsHaveZeroPerRoiLoss) {
  // ignore_label 1 leaves region 1 alone: loss ln 4 - ln 3 over 1 valid label (VALID), over 3
  // (FULL). Its per-ROI loss is 0 at regions 0 and 2. (Intel Caffe sums the first `valid count`
  // entries of its scratch, region 0's stale value instead of region 1's loss, and leaves stale
  // values at ignored regions.)
  Case c;
  ASSERT_TRUE(c.Run("loss_param { ignore_label: 1 }"));
  EXPECT_NEAR(c.loss.data()[0], 2 * kLn2 - kLn3, 1e-6);
  EXPECT_EQ(c.per_roi.data()[0], 0.f);
  EXPECT_NEAR(c.per_roi.data()[1], 2 * kLn2 - kLn3, 1e-6);
  EXPECT_EQ(c.per_roi.data()[2], 0.f);
  ASSERT_TRUE(c.Run("loss_param { ignore_label: 1 normalization: FULL }"));
  EXPECT_NEAR(c.loss.data()[0], (2 * kLn2 - kLn3) / 3, 1e-6);
}

TEST(SoftmaxWithLossOHEMLayerTest, AgreesWithSoftmaxWithLossOverSpatialScores) {
  // Scores (2, 3, 2, 2) and labels (2, 1, 2, 2): the loss and the gradient are SoftmaxWithLoss's;
  // the per-ROI top holds each location's loss, whose sum is the loss times the normalizer 8.
  Tensor scores({2, 3, 2, 2}), labels({2, 1, 2, 2});
  testing::FillGaussian(&scores, 31, 2.f);
  FillValues(&labels, {0, 1, 2, 1, 2, 2, 0, 1});
  auto plain = MakeLayer(R"(name: "cls" type: "SoftmaxWithLoss")");
  auto ohem = MakeLayer(R"(name: "cls" type: "SoftmaxWithLossOHEM")");
  Tensor plain_loss, loss, prob, per_roi;
  ASSERT_TRUE(plain->Setup({&scores, &labels}, {&plain_loss}).ok());
  ASSERT_TRUE(ohem->Setup({&scores, &labels}, {&loss, &prob, &per_roi}).ok());
  ASSERT_TRUE(plain->Forward({&scores, &labels}, {&plain_loss}, nullptr).ok());
  ASSERT_TRUE(ohem->Forward({&scores, &labels}, {&loss, &prob, &per_roi}, nullptr).ok());
  EXPECT_EQ(loss.data()[0], plain_loss.data()[0]);
  EXPECT_EQ(per_roi.shape(), labels.shape());
  double sum = 0;
  for (int i = 0; i < 8; ++i) sum += per_roi.data()[i];
  EXPECT_NEAR(sum / 8, loss.data()[0], 1e-6);

  plain_loss.mutable_diff()[0] = 1.f;
  plain->Backward({&plain_loss}, {true, false}, {&scores, &labels});
  const std::vector<float> plain_diff(scores.diff(), scores.diff() + scores.count());
  scores.SetDiff(0.f);
  loss.mutable_diff()[0] = 1.f;
  per_roi.SetDiff(100.f);  // not read
  ohem->Backward({&loss, &prob, &per_roi}, {true, false}, {&scores, &labels});
  EXPECT_EQ(std::vector<float>(scores.diff(), scores.diff() + scores.count()), plain_diff);
}

TEST(SoftmaxWithLossOHEMLayerTest, Gradient) {
  for (const char* extra : {"", "loss_param { ignore_label: 2 }"}) {
    auto layer = MakeLayer(std::string(R"(name: "cls" type: "SoftmaxWithLossOHEM" )") + extra);
    Tensor scores({5, 3, 1, 1}), labels({5, 1, 1, 1}), loss, prob, per_roi;
    testing::FillGaussian(&scores, 32);
    FillValues(&labels, {0, 2, 1, 2, 0});
    testing::GradientCheckOptions options;
    options.bottoms = {0};
    options.tops = {0};  // the probabilities and the per-ROI loss carry no gradient
    testing::CheckGradients(*layer, {&scores, &labels}, {&loss, &prob, &per_roi}, options);
  }
}

TEST(SoftmaxWithLossOHEMLayerTest, LabelsGetNoGradient) {
  auto layer = MakeLayer(R"(name: "cls" type: "SoftmaxWithLossOHEM")");
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_FALSE(layer->AllowForceBackward(1));
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_EQ(layer->DefaultLossWeight(2), 0.f);
}

TEST(SoftmaxWithLossOHEMLayerTest, BadLabelsTopsAndWeightsAreRefused) {
  Case c;
  auto layer = MakeLayer(R"(name: "cls" type: "SoftmaxWithLossOHEM")");
  ASSERT_TRUE(layer->Setup({&c.scores, &c.labels}, {&c.loss, &c.prob, &c.per_roi}).ok());
  for (const auto& [label, shown] :
       std::vector<std::pair<float, std::string>>{{2.f, "2"},
                                                  {-3.f, "-3"},
                                                  {std::numeric_limits<float>::quiet_NaN(), "nan"},
                                                  {3e9f, "3e+09"}}) {
    FillValues(&c.labels, {1, label, 0});
    EXPECT_EQ(
        layer->Forward({&c.scores, &c.labels}, {&c.loss, &c.prob, &c.per_roi}, nullptr).message(),
        "layer 'cls' (SoftmaxWithLossOHEM): label " + shown + " at position 1 is outside [0, 2)");
  }

  Tensor a, b, d, e;
  layer = MakeLayer(R"(name: "cls" type: "SoftmaxWithLossOHEM")");
  EXPECT_EQ(layer->Setup({&c.scores, &c.labels}, {&a, &b, &d, &e}).message(),
            "layer 'cls' (SoftmaxWithLossOHEM): top takes at most 3 blob(s), got 4");
  layer = MakeLayer(
      R"(name: "cls" type: "SoftmaxWithLossOHEM" loss_weight: 0 loss_weight: 0 loss_weight: 1)");
  EXPECT_EQ(layer->Setup({&c.scores, &c.labels}, {&a, &b, &d}).message(),
            "layer 'cls' (SoftmaxWithLossOHEM): loss_weight of the per-ROI loss (top 2) must be "
            "0, got 1: it gets no gradient (Intel Caffe's backward ignores it)");
  Tensor short_labels({2});
  layer = MakeLayer(R"(name: "cls" type: "SoftmaxWithLossOHEM")");
  EXPECT_EQ(layer->Setup({&c.scores, &short_labels}, {&a}).message(),
            "layer 'cls' (SoftmaxWithLossOHEM): scores and labels must have the same first "
            "dimension: scores 3 2 1 1 (6), labels 2 (2)");
  Tensor wide_labels({3, 2});
  layer = MakeLayer(R"(name: "cls" type: "SoftmaxWithLossOHEM")");
  EXPECT_EQ(layer->Setup({&c.scores, &wide_labels}, {&a}).message(),
            "layer 'cls' (SoftmaxWithLossOHEM): needs one label per prediction: scores 3 2 1 1 "
            "(6) with softmax axis 1 need 3 labels, got 3 2 (6)");
}

}  // namespace
}  // namespace dtrain
