// SmoothL1LossOHEM (R-FCN's box loss with a per-ROI top): hand-worked loss, per-ROI sums and
// gradients, every normalization, numeric gradient checks, and every refusal's message.
#include "layers/smooth_l1_loss_ohem_layer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

// Two regions of three coordinates each, as R-FCN's (R, 4 K, 1, 1) rows but smaller.
//   p - t       = (0.5, -2, 1.5 | -0.25, 2, -0.4)
//   w           = (1, 1, 1      | 0, 1, 2)
//   d = w (p-t) = (0.5, -2, 1.5 | 0, 2, -0.8)
//   f(d)        = (0.125, 1.5, 1 | 0, 1.5, 0.32)   (0.5 d^2 below |d| = 1, else |d| - 0.5)
// Per-ROI loss: 0.125 + 1.5 + 1 = 2.625 and 0 + 1.5 + 0.32 = 1.82. Their sum 4.445 over the
// default VALID normalizer, N H W = 2 (no label is ignored): 2.2225.
struct Case {
  Tensor p{{2, 3}}, t{{2, 3}}, w{{2, 3}};
  Case() {
    FillValues(&p, {0.5f, -2, 1.5f, 0, 3, -0.2f});
    FillValues(&t, {0, 0, 0, 0.25f, 1, 0.2f});
    FillValues(&w, {1, 1, 1, 0, 1, 2});
  }
};

TEST(SmoothL1LossOHEMLayerTest, LossAndPerRoiLossByHand) {
  Case c;
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  Tensor loss, per_roi;
  ASSERT_TRUE(layer->Setup({&c.p, &c.t, &c.w}, {&loss, &per_roi}).ok());
  EXPECT_EQ(loss.num_axes(), 0);
  EXPECT_EQ(per_roi.shape(), (std::vector<int>{2, 1, 1, 1}));  // Intel's (N, 1, H, W)
  float weighted = 0;
  ASSERT_TRUE(layer->Forward({&c.p, &c.t, &c.w}, {&loss, &per_roi}, &weighted).ok());
  EXPECT_FLOAT_EQ(loss.data()[0], 2.2225f);
  EXPECT_FLOAT_EQ(weighted, 2.2225f);  // loss weight 1 on top 0, 0 on the per-ROI top
  EXPECT_FLOAT_EQ(per_roi.data()[0], 2.625f);
  EXPECT_FLOAT_EQ(per_roi.data()[1], 1.82f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_EQ(layer->DefaultLossWeight(1), 0.f);
}

TEST(SmoothL1LossOHEMLayerTest, GradientByHandCarriesTheInsideWeight) {
  // Top diff 1: f'(d) = (0.5, -1, 1 | 0, 1, -0.8) (d below the bend, else its sign), times w =
  // (0.5, -1, 1 | 0, 1, -1.6), over the normalizer 2. Intel Caffe leaves out the factor w, which
  // only the last element (w = 2) shows: it would give -0.4 there.
  Case c;
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  Tensor loss, per_roi;
  ASSERT_TRUE(layer->Setup({&c.p, &c.t, &c.w}, {&loss, &per_roi}).ok());
  ASSERT_TRUE(layer->Forward({&c.p, &c.t, &c.w}, {&loss, &per_roi}, nullptr).ok());
  loss.mutable_diff()[0] = 1.f;
  per_roi.SetDiff(100.f);  // not read: the per-ROI top carries no gradient
  layer->Backward({&loss, &per_roi}, {true, true, false}, {&c.p, &c.t, &c.w});
  EXPECT_EQ(std::vector<float>(c.p.diff(), c.p.diff() + 6),
            (std::vector<float>{0.25f, -0.5f, 0.5f, 0, 0.5f, -0.8f}));
  EXPECT_EQ(std::vector<float>(c.t.diff(), c.t.diff() + 6),
            (std::vector<float>{-0.25f, 0.5f, -0.5f, 0, -0.5f, 0.8f}));
}

TEST(SmoothL1LossOHEMLayerTest, PerRoiLossSumsChannelsAtEachPosition) {
  // (N, C, H, W) = (1, 2, 1, 2), t = 0: f = (0.125, 1.5 | 1, 0.005) for channels 0 and 1 at the
  // two positions (d = 0.5, 2 | -1.5, 0.1). Per position: 0.125 + 1 = 1.125 and 1.5 + 0.005 =
  // 1.505, top shape (1, 1, 1, 2). The sum 2.63 over the normalizer of each mode:
  //   VALID, FULL: N H W = 2 -> 1.315; BATCH_SIZE: N = 1 -> 2.63; NONE: 2.63;
  //   PRE_FIXED 4 -> 0.6575; PRE_FIXED 0.5 -> at least 1 -> 2.63;
  //   legacy normalize: true (VALID) -> 1.315, false (BATCH_SIZE) -> 2.63.
  Tensor p({1, 2, 1, 2}), t({1, 2, 1, 2}), loss, per_roi;
  FillValues(&p, {0.5f, 2, -1.5f, 0.1f});
  const std::vector<std::pair<std::string, float>> cases = {
      {"", 1.315f},
      {"loss_param { normalization: VALID }", 1.315f},
      {"loss_param { normalization: FULL }", 1.315f},
      {"loss_param { normalization: BATCH_SIZE }", 2.63f},
      {"loss_param { normalization: NONE }", 2.63f},
      {"loss_param { normalization: PRE_FIXED pre_fixed_normalizer: 4 }", 0.6575f},
      {"loss_param { normalization: PRE_FIXED pre_fixed_normalizer: 0.5 }", 2.63f},
      {"loss_param { normalize: true }", 1.315f},
      {"loss_param { normalize: false }", 2.63f},
  };
  for (const auto& [param, expected] : cases) {
    auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM" )" + param);
    ASSERT_TRUE(layer->Setup({&p, &t}, {&loss, &per_roi}).ok()) << param;
    ASSERT_TRUE(layer->Forward({&p, &t}, {&loss, &per_roi}, nullptr).ok()) << param;
    EXPECT_FLOAT_EQ(loss.data()[0], expected) << param;
    EXPECT_EQ(per_roi.shape(), (std::vector<int>{1, 1, 1, 2}));
    EXPECT_FLOAT_EQ(per_roi.data()[0], 1.125f);
    EXPECT_FLOAT_EQ(per_roi.data()[1], 1.505f);
  }
}

TEST(SmoothL1LossOHEMLayerTest, OneTopAndSigmaOneAreAccepted) {
  Case c;
  auto layer =
      MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM" smooth_l1_loss_param { sigma: 1 })");
  Tensor loss;
  ASSERT_TRUE(layer->Setup({&c.p, &c.t, &c.w}, {&loss}).ok());
  ASSERT_TRUE(layer->Forward({&c.p, &c.t, &c.w}, {&loss}, nullptr).ok());
  EXPECT_FLOAT_EQ(loss.data()[0], 2.2225f);
}

// Differences kept at least 0.2 from the bend at |d| = 1, so that the checker's steps of 0.01
// (moving d by at most 0.015 with weights up to 1.5) stay on one piece of f.
void FillAwayFromTheBend(const Tensor* w, Tensor* p, Tensor* t) {
  const float ds[] = {-3.1f, -1.7f, -0.6f, -0.2f, 0.f, 0.3f, 0.75f, 1.4f, 2.2f};
  testing::FillGaussian(t, 21);
  for (int64_t i = 0; i < p->count(); ++i) {
    const float weight = w == nullptr ? 1.f : w->data()[i];
    p->mutable_data()[i] = t->data()[i] + ds[i % 9] / weight;
  }
}

TEST(SmoothL1LossOHEMLayerTest, GradientWithoutWeights) {
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  Tensor p({3, 4, 2, 1}), t({3, 4, 2, 1}), loss, per_roi;
  FillAwayFromTheBend(nullptr, &p, &t);
  testing::GradientCheckOptions options;
  options.tops = {0};  // the per-ROI top carries no gradient
  testing::CheckGradients(*layer, {&p, &t}, {&loss, &per_roi}, options);
}

TEST(SmoothL1LossOHEMLayerTest, GradientWithWeights) {
  for (const char* norm : {"", "loss_param { normalization: PRE_FIXED pre_fixed_normalizer: 3 }"}) {
    auto layer = MakeLayer(std::string(R"(name: "loss" type: "SmoothL1LossOHEM" )") + norm);
    Tensor p({4, 8}), t({4, 8}), w({4, 8}), loss, per_roi;
    testing::FillUniform(&w, 22, 0.5f, 1.5f);
    FillAwayFromTheBend(&w, &p, &t);
    testing::GradientCheckOptions options;
    options.bottoms = {0, 1};
    options.tops = {0};
    testing::CheckGradients(*layer, {&p, &t, &w}, {&loss, &per_roi}, options);
  }
}

// The weights are never forced to take a gradient; where a net needs one it is 0
// (SmoothL1LossLayerTest.WeightsThatNeedAGradientGetZero runs it in a net).
TEST(SmoothL1LossOHEMLayerTest, OnlyPredictionAndTargetTakeGradients) {
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_TRUE(layer->AllowForceBackward(1));
  EXPECT_FALSE(layer->AllowForceBackward(2));
}

TEST(SmoothL1LossOHEMLayerTest, BadParametersAndBottomsAreRefused) {
  Tensor p({2, 4}), t({2, 4}), w({2, 4}), other({2, 5}), wide({2, 4, 1, 1, 1}), loss, per_roi;
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  EXPECT_EQ(layer->Setup({&p, &t, &w, &w}, {&loss}).message(),
            "layer 'loss' (SmoothL1LossOHEM): bottom takes at most 3 blob(s), got 4");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  EXPECT_EQ(layer->Setup({&p, &t}, {&loss, &per_roi, &per_roi}).message(),
            "layer 'loss' (SmoothL1LossOHEM): top takes at most 2 blob(s), got 3");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  EXPECT_EQ(layer->Setup({&p, &other}, {&loss}).message(),
            "layer 'loss' (SmoothL1LossOHEM): the target (bottom 1) must have the shape of the "
            "prediction (bottom 0), 2 4 (8), got 2 5 (10)");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  EXPECT_EQ(layer->Setup({&p, &t, &other}, {&loss}).message(),
            "layer 'loss' (SmoothL1LossOHEM): bbox_inside_weights (bottom 2) must have the shape "
            "of the prediction (bottom 0), 2 4 (8), got 2 5 (10)");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM")");
  EXPECT_EQ(layer->Setup({&wide, &wide}, {&loss}).message(),
            "layer 'loss' (SmoothL1LossOHEM): the prediction (bottom 0) has more than 4 axes "
            "(Caffe compares num, channels, height and width), got 2 4 1 1 1 (8)");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM" smooth_l1_loss_param { sigma: 3 })");
  EXPECT_EQ(layer->Setup({&p, &t}, {&loss}).message(),
            "layer 'loss' (SmoothL1LossOHEM): smooth_l1_loss_param.sigma is 3, but "
            "SmoothL1LossOHEM computes with sigma 1 (Intel Caffe's reads no sigma); remove it");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1LossOHEM" loss_weight: 1 loss_weight: 0.5)");
  EXPECT_EQ(layer->Setup({&p, &t}, {&loss, &per_roi}).message(),
            "layer 'loss' (SmoothL1LossOHEM): loss_weight of the per-ROI loss (top 1) must be 0, "
            "got 0.5: it gets no gradient (Intel Caffe's backward ignores it)");
}

}  // namespace
}  // namespace dtrain
