#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

float RunLoss(Layer& layer, const TensorVec& bottom, Tensor* top) {
  Status s = layer.Setup(bottom, {top});
  EXPECT_TRUE(s.ok()) << s.message();
  float loss = 0;
  s = layer.Forward(bottom, {top}, &loss);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(top->num_axes(), 0);
  EXPECT_FLOAT_EQ(loss, top->data()[0]);  // loss weight 1 by default
  return top->data()[0];
}

TEST(SmoothL1LossLayerTest, ForwardWithoutWeights) {
  // d = p - t = (0.5, -2, 1.5, -0.25); sigma 1, so f = 0.5 d^2 below |d| = 1, else |d| - 0.5:
  // 0.125 + 1.5 + 1 + 0.03125 = 2.65625, divided by N = 2: 1.328125.
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss")");
  Tensor p({2, 2}), t({2, 2}), top;
  FillValues(&p, {0.5f, -2, 1.5f, 0});
  FillValues(&t, {0, 0, 0, 0.25f});
  EXPECT_FLOAT_EQ(RunLoss(*layer, {&p, &t}, &top), 1.328125f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
}

TEST(SmoothL1LossLayerTest, SigmaMovesTheBend) {
  // sigma 2: the bend at |d| = 1 / 4. d = (0.5, -2, 0.1, -0.25): 0.5 - 0.125 = 0.375, 2 - 0.125 =
  // 1.875, 0.5 * 4 * 0.01 = 0.02, and 0.25 is not below the bend: 0.25 - 0.125 = 0.125. Sum
  // 2.395, over N = 2: 1.1975.
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss" smooth_l1_loss_param { sigma: 2 })");
  Tensor p({2, 2}), t({2, 2}), top;
  FillValues(&p, {0.5f, -2, 0.1f, -0.25f});
  FillValues(&t, {0, 0, 0, 0});
  EXPECT_FLOAT_EQ(RunLoss(*layer, {&p, &t}, &top), 1.1975f);
}

TEST(SmoothL1LossLayerTest, InsideAndOutsideWeights) {
  // p - t as in ForwardWithoutWeights, w_in = (2, 1, 0.5, 1): d = (1, -2, 0.75, -0.25); f = (1 -
  // 0.5, 2 - 0.5, 0.5 * 0.5625, 0.5 * 0.0625) = (0.5, 1.5, 0.28125, 0.03125); times w_out = (1,
  // 0.5, 2, 0): 0.5 + 0.75 + 0.5625 + 0 = 1.8125, over N = 2: 0.90625.
  // Gradients, top diff 1: f'(d) = (1, -1, 0.75, -0.25) times w_in w_out / N = (1, -0.25,
  // 0.375, 0); the target's are their negatives.
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss")");
  Tensor p({2, 2}), t({2, 2}), w_in({2, 2}), w_out({2, 2}), top;
  FillValues(&p, {0.5f, -2, 1.5f, 0});
  FillValues(&t, {0, 0, 0, 0.25f});
  FillValues(&w_in, {2, 1, 0.5f, 1});
  FillValues(&w_out, {1, 0.5f, 2, 0});
  EXPECT_FLOAT_EQ(RunLoss(*layer, {&p, &t, &w_in, &w_out}, &top), 0.90625f);
  top.mutable_diff()[0] = 1.f;
  layer->Backward({&top}, {true, true, false, false}, {&p, &t, &w_in, &w_out});
  EXPECT_EQ(std::vector<float>(p.diff(), p.diff() + 4), (std::vector<float>{1, -0.25f, 0.375f, 0}));
  EXPECT_EQ(std::vector<float>(t.diff(), t.diff() + 4),
            (std::vector<float>{-1, 0.25f, -0.375f, 0}));
}

TEST(SmoothL1LossLayerTest, NormalizationNoneDividesByOne) {
  // The weighted case above, not divided by N: 1.8125. Intel Caffe's layer reads only NONE; any
  // other mode (here FULL) divides by the batch size.
  Tensor p({2, 2}), t({2, 2}), w_in({2, 2}), w_out({2, 2}), top;
  FillValues(&p, {0.5f, -2, 1.5f, 0});
  FillValues(&t, {0, 0, 0, 0.25f});
  FillValues(&w_in, {2, 1, 0.5f, 1});
  FillValues(&w_out, {1, 0.5f, 2, 0});
  auto none = MakeLayer(R"(name: "loss" type: "SmoothL1Loss" loss_param { normalization: NONE })");
  EXPECT_FLOAT_EQ(RunLoss(*none, {&p, &t, &w_in, &w_out}, &top), 1.8125f);
  auto full = MakeLayer(R"(name: "loss" type: "SmoothL1Loss" loss_param { normalization: FULL })");
  EXPECT_FLOAT_EQ(RunLoss(*full, {&p, &t, &w_in, &w_out}, &top), 0.90625f);
}

// Prediction and target whose weighted difference d keeps at least 0.25 / sigma^2 from the bend
// at |d| = 1 / sigma^2, so the checker's steps of 0.01 (moving d by at most 0.015 here) stay on
// one piece of f.
void FillAwayFromTheBend(float sigma, const Tensor* w_in, Tensor* p, Tensor* t) {
  const float multiples[] = {-3.1f, -1.7f, -0.6f, -0.2f, 0.f, 0.3f, 0.75f, 1.4f, 2.2f};
  const float bound = 1.f / (sigma * sigma);
  testing::FillGaussian(t, 11);
  for (int64_t i = 0; i < p->count(); ++i) {
    const float d = multiples[i % 9] * bound;
    const float w = w_in == nullptr ? 1.f : w_in->data()[i];
    p->mutable_data()[i] = t->data()[i] + d / w;
  }
}

TEST(SmoothL1LossLayerTest, GradientWithoutWeights) {
  for (float sigma : {1.f, 3.f}) {
    auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss" smooth_l1_loss_param { sigma: )" +
                           std::to_string(sigma) + " }");
    Tensor p({3, 2, 3}), t({3, 2, 3}), top;
    FillAwayFromTheBend(sigma, nullptr, &p, &t);
    testing::CheckGradients(*layer, {&p, &t}, {&top});
  }
}

TEST(SmoothL1LossLayerTest, GradientWithWeights) {
  for (float sigma : {1.f, 3.f}) {
    auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss" smooth_l1_loss_param { sigma: )" +
                           std::to_string(sigma) + " }");
    Tensor p({3, 8}), t({3, 8}), w_in({3, 8}), w_out({3, 8}), top;
    testing::FillUniform(&w_in, 12, 0.5f, 1.5f);
    testing::FillUniform(&w_out, 13, 0.f, 2.f);
    FillAwayFromTheBend(sigma, &w_in, &p, &t);
    testing::GradientCheckOptions options;
    options.bottoms = {0, 1};
    testing::CheckGradients(*layer, {&p, &t, &w_in, &w_out}, {&top}, options);
  }
}

TEST(SmoothL1LossLayerTest, BadBottomsAndSigmaAreRefused) {
  Tensor p({2, 4}), t({2, 4}), w({2, 4}), other({2, 5}), wide({2, 4, 1, 1, 1}), top;
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss")");
  EXPECT_EQ(layer->Setup({&p, &t, &w}, {&top}).message(),
            "layer 'loss' (SmoothL1Loss): takes 2 bottoms (prediction, target) or 4 (with "
            "bbox_inside_weights and bbox_outside_weights), got 3");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss")");
  EXPECT_EQ(layer->Setup({&p, &other}, {&top}).message(),
            "layer 'loss' (SmoothL1Loss): the target (bottom 1) must have the shape of the "
            "prediction (bottom 0), 2 4 (8), got 2 5 (10)");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss")");
  EXPECT_EQ(layer->Setup({&p, &t, &w, &other}, {&top}).message(),
            "layer 'loss' (SmoothL1Loss): bbox_outside_weights (bottom 3) must have the shape of "
            "the prediction (bottom 0), 2 4 (8), got 2 5 (10)");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss")");
  EXPECT_EQ(layer->Setup({&p, &wide}, {&top}).message(),
            "layer 'loss' (SmoothL1Loss): the target (bottom 1) has more than 4 axes (Caffe "
            "compares num, channels, height and width), got 2 4 1 1 1 (8)");
  layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss" smooth_l1_loss_param { sigma: 0 })");
  EXPECT_EQ(layer->Setup({&p, &t}, {&top}).message(),
            "layer 'loss' (SmoothL1Loss): smooth_l1_loss_param.sigma must be finite and not 0, "
            "got 0.000000");
}

TEST(SmoothL1LossLayerTest, ShapesAreComparedAsCaffesFourAxes) {
  // (2, 4) and (2, 4, 1, 1) have the same num, channels, height and width.
  auto layer = MakeLayer(R"(name: "loss" type: "SmoothL1Loss")");
  Tensor p({2, 4}), t({2, 4, 1, 1}), top;
  ASSERT_TRUE(layer->Setup({&p, &t}, {&top}).ok());
}

// py-faster-rcnn's nets compute the RPN loss weights in a Python layer with a bottom that needs a
// gradient, so the weights "need" one too: Caffe's SmoothL1Loss (and the OHEM variant) accept that
// and give them none. Here the net builds, and the weights' producer sees a zero diff.
TEST(SmoothL1LossLayerTest, WeightsThatNeedAGradientGetZero) {
  for (const std::string loss : {"SmoothL1Loss", "SmoothL1LossOHEM"}) {
    SCOPED_TRACE(loss);
    const std::string extra_bottom =
        loss == "SmoothL1Loss" ? "bottom: \"w\" " : "";  // OHEM: one weights bottom
    const std::string extra_top = loss == "SmoothL1Loss" ? "" : "top: \"per_roi\" ";
    const std::string text =
        R"(layer { name: "data" type: "DummyData" top: "d" top: "t"
                   dummy_data_param { shape { dim: 2 dim: 4 } shape { dim: 2 dim: 4 }
                                      data_filler { type: "gaussian" std: 1 } } }
           layer { name: "pred" type: "InnerProduct" bottom: "d" top: "p"
                   inner_product_param { num_output: 4 weight_filler { type: "gaussian" std: 1 } } }
           layer { name: "weigh" type: "InnerProduct" bottom: "d" top: "w"
                   inner_product_param { num_output: 4 weight_filler { type: "gaussian" std: 1 } } }
           layer { name: "loss" type: ")" +
        loss + R"(" bottom: "p" bottom: "t" bottom: "w" )" + extra_bottom + R"(top: "loss" )" +
        extra_top + R"(loss_weight: 1 )" + (extra_top.empty() ? "" : "loss_weight: 0 ") + "}";
    NetParameter param;
    ASSERT_TRUE(ParseTextProto(text, "net", &param).ok());
    NetState state;
    state.set_phase(TRAIN);
    auto net = Net::Create(param, state, 1);
    ASSERT_TRUE(net.ok()) << net.status().message();
    ASSERT_TRUE((*net)->Forward().ok());
    (*net)->Backward();
    float weigh_grad = 0.f, pred_grad = 0.f;
    const Tensor& weigh = *(*net)->layer_by_name("weigh")->blobs()[0];
    const Tensor& pred = *(*net)->layer_by_name("pred")->blobs()[0];
    for (int64_t i = 0; i < weigh.count(); ++i) weigh_grad += std::fabs(weigh.diff()[i]);
    for (int64_t i = 0; i < pred.count(); ++i) pred_grad += std::fabs(pred.diff()[i]);
    EXPECT_EQ(weigh_grad, 0.f);
    EXPECT_GT(pred_grad, 0.f);
  }
}

}  // namespace
}  // namespace dtrain
