#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Two examples, three classes: example 0 has scores {0, ln 2, ln 3} (p = {1, 2, 3} / 6) and label
// 2, so its loss is -ln(1/2) = ln 2; example 1 has equal scores and label 0: loss ln 3.
class SoftmaxWithLossForwardTest : public ::testing::Test {
 protected:
  SoftmaxWithLossForwardTest() : scores_({2, 3}), labels_({2}) {
    FillValues(&scores_, {0, std::log(2.f), std::log(3.f), 0, 0, 0});
    FillValues(&labels_, {2, 0});
  }
  float Loss(const std::string& loss_param) {
    auto layer = MakeLayer(R"(name: "loss" type: "SoftmaxWithLoss" )" + loss_param);
    Tensor top;
    Status s = layer->Setup({&scores_, &labels_}, {&top});
    EXPECT_TRUE(s.ok()) << s.message();
    float loss = 0;
    s = layer->Forward({&scores_, &labels_}, {&top}, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(top.num_axes(), 0);
    EXPECT_EQ(top.count(), 1);
    EXPECT_FLOAT_EQ(loss, top.data()[0]);  // default loss weight 1
    return top.data()[0];
  }
  Tensor scores_, labels_;
  const float ln2_ = std::log(2.f), ln3_ = std::log(3.f);
};

TEST_F(SoftmaxWithLossForwardTest, ValidNormalizationByDefault) {
  EXPECT_NEAR(Loss(""), (ln2_ + ln3_) / 2, 1e-6);
}

TEST_F(SoftmaxWithLossForwardTest, NormalizationModes) {
  EXPECT_NEAR(Loss("loss_param { normalization: NONE }"), ln2_ + ln3_, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: BATCH_SIZE }"), (ln2_ + ln3_) / 2, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: FULL }"), (ln2_ + ln3_) / 2, 1e-6);
  // Intel Caffe's (R-FCN's) fixed normalizer; its default is 1, and below 1 it counts as 1.
  EXPECT_NEAR(Loss("loss_param { normalization: PRE_FIXED pre_fixed_normalizer: 4 }"),
              (ln2_ + ln3_) / 4, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: PRE_FIXED }"), ln2_ + ln3_, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: PRE_FIXED pre_fixed_normalizer: 0.5 }"),
              ln2_ + ln3_, 1e-6);
}

TEST_F(SoftmaxWithLossForwardTest, IgnoreLabel) {
  // Example 1 (label 0) is ignored: VALID divides by 1, FULL still by 2.
  EXPECT_NEAR(Loss("loss_param { ignore_label: 0 }"), ln2_, 1e-6);
  EXPECT_NEAR(Loss("loss_param { ignore_label: 0 normalization: FULL }"), ln2_ / 2, 1e-6);
  // Everything ignored: the normalizer stays 1, so the loss is 0, not NaN.
  FillValues(&labels_, {0, 0});
  EXPECT_EQ(Loss("loss_param { ignore_label: 0 }"), 0.f);
}

TEST_F(SoftmaxWithLossForwardTest, LegacyNormalizeFalseMeansBatchSize) {
  EXPECT_NEAR(Loss("loss_param { ignore_label: 0 normalize: false }"), ln2_ / 2, 1e-6);
  EXPECT_NEAR(Loss("loss_param { ignore_label: 0 normalize: true }"), ln2_, 1e-6);
}

TEST_F(SoftmaxWithLossForwardTest, SecondTopIsTheProbabilities) {
  auto layer = MakeLayer(R"(name: "loss" type: "SoftmaxWithLoss")");
  Tensor loss, prob;
  ASSERT_TRUE(layer->Setup({&scores_, &labels_}, {&loss, &prob}).ok());
  ASSERT_TRUE(layer->Forward({&scores_, &labels_}, {&loss, &prob}, nullptr).ok());
  EXPECT_EQ(prob.shape(), scores_.shape());
  const float want[] = {1 / 6.f, 2 / 6.f, 3 / 6.f, 1 / 3.f, 1 / 3.f, 1 / 3.f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(prob.data()[i], want[i], 1e-6);
  EXPECT_EQ(layer->loss_weight(0), 1.f);
  EXPECT_EQ(layer->loss_weight(1), 0.f);
}

TEST(SoftmaxWithLossLayerTest, LossLayerTraits) {
  auto layer = MakeLayer(R"(name: "loss" type: "SoftmaxWithLoss")");
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_FALSE(layer->AllowForceBackward(1));
}

TEST(SoftmaxWithLossLayerTest, BackwardScalesByTheLossWeightInTheTopDiff) {
  auto layer = MakeLayer(R"(name: "loss" type: "SoftmaxWithLoss")");
  Tensor scores({1, 2}), labels({1}), top;
  labels.mutable_data()[0] = 1;
  scores.SetData(0.f);  // p = {1/2, 1/2}
  ASSERT_TRUE(layer->Setup({&scores, &labels}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&scores, &labels}, {&top}, nullptr).ok());
  top.mutable_diff()[0] = 3.f;
  layer->Backward({&top}, {true, false}, {&scores, &labels});
  EXPECT_NEAR(scores.diff()[0], 1.5f, 1e-6);
  EXPECT_NEAR(scores.diff()[1], -1.5f, 1e-6);
}

TEST(SoftmaxWithLossLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "loss" type: "SoftmaxWithLoss")");
  Tensor scores({2, 5, 2}), labels({2, 2}), top;
  testing::FillGaussian(&scores, 1);
  FillValues(&labels, {0, 4, 2, 1});
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&scores, &labels}, {&top}, options);
}

TEST(SoftmaxWithLossLayerTest, GradientWithIgnoreLabel) {
  for (const char* norm : {"VALID", "FULL", "BATCH_SIZE", "NONE"}) {
    SCOPED_TRACE(norm);
    auto layer = MakeLayer(std::string(R"(name: "loss" type: "SoftmaxWithLoss"
        loss_param { ignore_label: -1 normalization: )") +
                           norm + " }");
    Tensor scores({2, 5, 3}), labels({2, 1, 3}), top;
    testing::FillGaussian(&scores, 2);
    FillValues(&labels, {3, -1, 0, -1, 4, 1});
    testing::GradientCheckOptions options;
    options.bottoms = {0};
    testing::CheckGradients(*layer, {&scores, &labels}, {&top}, options);
    // Ignored positions get no gradient.
    for (int c = 0; c < 5; ++c) EXPECT_EQ(scores.diff()[c * 3 + 1], 0.f);
  }
}

TEST(SoftmaxWithLossLayerTest, LabelOutOfRangeIsAnError) {
  auto layer = MakeLayer(R"(name: "loss" type: "SoftmaxWithLoss")");
  Tensor scores({2, 3}), labels({2}), top;
  FillValues(&labels, {1, 3});
  ASSERT_TRUE(layer->Setup({&scores, &labels}, {&top}).ok());
  Status s = layer->Forward({&scores, &labels}, {&top}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'loss'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("label 3"), std::string::npos) << s.message();
}

TEST(SoftmaxWithLossLayerTest, WrongLabelCountIsAnError) {
  auto layer = MakeLayer(R"(name: "loss" type: "SoftmaxWithLoss")");
  Tensor scores({2, 3, 2}), labels({2}), top;
  Status s = layer->Setup({&scores, &labels}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'loss'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
