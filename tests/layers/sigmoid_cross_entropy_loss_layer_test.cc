#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Each element's loss is log(1 + e^x) - t x (= -t log sigmoid(x) - (1 - t) log(1 - sigmoid(x))):
//   x = 0,  t = 1:   ln 2                 = 0.693147
//   x = 2,  t = 0:   ln(1 + e^2)          = 2.126928
//   x = -3, t = 0.5: ln(1 + e^-3) + 1.5   = 1.548587
//   x = 1,  t = 1:   ln(1 + e) - 1        = 0.313262
// sum = 4.681924 over N = 2 items of 2 elements.
constexpr double kSum = 4.681924230694882;
// The same with the third target -1, ignored by ignore_label: -1: 0.693147 + 2.126928 + 0.313262.
constexpr double kSumIgnored = 3.133336879121141;

class SigmoidCrossEntropyLossTest : public ::testing::Test {
 protected:
  SigmoidCrossEntropyLossTest() : x_({2, 2}), t_({2, 2}) {
    FillValues(&x_, {0, 2, -3, 1});
    FillValues(&t_, {1, 0, 0.5f, 1});
  }
  float Loss(const std::string& extra) {
    layer_ = MakeLayer(R"(name: "sce" type: "SigmoidCrossEntropyLoss" )" + extra);
    Status s = layer_->Setup({&x_, &t_}, {&top_});
    EXPECT_TRUE(s.ok()) << s.message();
    float loss = 0;
    s = layer_->Forward({&x_, &t_}, {&top_}, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(top_.num_axes(), 0);
    EXPECT_FLOAT_EQ(loss, top_.data()[0]);  // default loss weight 1
    return top_.data()[0];
  }
  Tensor x_, t_, top_;
  testing::LayerPtr layer_;
};

TEST_F(SigmoidCrossEntropyLossTest, BatchSizeNormalizationByDefault) {
  // Caffe's historical default for this layer, not the field's VALID.
  EXPECT_NEAR(Loss(""), kSum / 2, 1e-6);
}

TEST_F(SigmoidCrossEntropyLossTest, NormalizationModes) {
  EXPECT_NEAR(Loss("loss_param { normalization: VALID }"), kSum / 4, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: FULL }"), kSum / 4, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: BATCH_SIZE }"), kSum / 2, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: NONE }"), kSum, 1e-6);
  // The legacy switch, read only without `normalization`: true is VALID, false BATCH_SIZE.
  EXPECT_NEAR(Loss("loss_param { normalize: true }"), kSum / 4, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalize: false }"), kSum / 2, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalize: true normalization: NONE }"), kSum, 1e-6);
}

TEST_F(SigmoidCrossEntropyLossTest, IgnoreLabel) {
  FillValues(&t_, {1, 0, -1, 1});
  EXPECT_NEAR(Loss("loss_param { ignore_label: -1 }"), kSumIgnored / 2, 1e-6);
  EXPECT_NEAR(Loss("loss_param { ignore_label: -1 normalization: VALID }"), kSumIgnored / 3, 1e-6);
  EXPECT_NEAR(Loss("loss_param { ignore_label: -1 normalize: true }"), kSumIgnored / 3, 1e-6);
  EXPECT_NEAR(Loss("loss_param { ignore_label: -1 normalization: FULL }"), kSumIgnored / 4, 1e-6);
  // Everything ignored: the normalizer stays 1, so the loss is 0, not NaN.
  FillValues(&t_, {-1, -1, -1, -1});
  EXPECT_EQ(Loss("loss_param { ignore_label: -1 normalization: VALID }"), 0.f);
}

TEST_F(SigmoidCrossEntropyLossTest, IgnoreLabelComparesTheTargetCastToInt) {
  // As in Caffe, target 0.5 casts to 0 and so is ignored by ignore_label: 0, like target 0.
  EXPECT_NEAR(Loss("loss_param { ignore_label: 0 normalization: NONE }"), 0.693147 + 0.313262,
              1e-5);
}

TEST_F(SigmoidCrossEntropyLossTest, BackwardByHand) {
  // dx = (sigmoid(x) - t) w / normalizer; w = 2, BATCH_SIZE normalizer 2: sigmoid(x) - t, the
  // ignored third element (t = -1, ignore_label -1) 0.
  FillValues(&t_, {1, 0, -1, 1});
  Loss("loss_param { ignore_label: -1 }");
  x_.SetDiff(7.f);  // overwritten, not accumulated
  top_.mutable_diff()[0] = 2.f;
  layer_->Backward({&top_}, {true, false}, {&x_, &t_});
  const float s2 = 1 / (1 + std::exp(-2.f)), s1 = 1 / (1 + std::exp(-1.f));
  const float want[] = {0.5f - 1, s2, 0, s1 - 1};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(x_.diff()[i], want[i], 1e-6) << i;
}

TEST_F(SigmoidCrossEntropyLossTest, StableForLargeScores) {
  // A naive log(sigmoid(x)) would give inf or NaN. A target against the sign of x costs |x| = 100;
  // one that agrees with it costs log(1 + e^-80), about 0; the gradients are +-1 and about 0.
  FillValues(&x_, {100, -100, 80, -80});
  FillValues(&t_, {0, 1, 1, 0});
  EXPECT_NEAR(Loss("loss_param { normalization: NONE }"), 200.f, 1e-4);
  top_.mutable_diff()[0] = 1.f;
  layer_->Backward({&top_}, {true, false}, {&x_, &t_});
  const float want[] = {1, -1, 0, 0};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(x_.diff()[i], want[i], 1e-6) << i;
}

TEST(SigmoidCrossEntropyLossLayerTest, LossLayerTraits) {
  auto layer = MakeLayer(R"(name: "sce" type: "SigmoidCrossEntropyLoss")");
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_FALSE(layer->AllowForceBackward(1));
}

TEST(SigmoidCrossEntropyLossLayerTest, Gradient) {
  for (const char* norm : {"VALID", "FULL", "BATCH_SIZE", "NONE"}) {
    SCOPED_TRACE(norm);
    auto layer = MakeLayer(std::string(R"(name: "sce" type: "SigmoidCrossEntropyLoss"
        loss_param { normalization: )") +
                           norm + " }");
    Tensor x({3, 2, 2}), t({3, 4}), top;
    testing::FillGaussian(&x, 7, 2.f);
    testing::FillUniform(&t, 8, 0.f, 1.f);
    testing::GradientCheckOptions options;
    options.bottoms = {0};
    testing::CheckGradients(*layer, {&x, &t}, {&top}, options);
  }
}

TEST(SigmoidCrossEntropyLossLayerTest, GradientWithIgnoreLabel) {
  auto layer = MakeLayer(R"(name: "sce" type: "SigmoidCrossEntropyLoss"
                            loss_param { ignore_label: -1 normalization: VALID })");
  Tensor x({2, 3}), t({2, 3}), top;
  testing::FillGaussian(&x, 9);
  FillValues(&t, {1, -1, 0, 0, 1, -1});
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&x, &t}, {&top}, options);
  EXPECT_EQ(x.diff()[1], 0.f);
  EXPECT_EQ(x.diff()[5], 0.f);
}

TEST(SigmoidCrossEntropyLossLayerTest, CountsMustAgree) {
  auto layer = MakeLayer(R"(name: "sce" type: "SigmoidCrossEntropyLoss")");
  Tensor x({2, 3}), t({2, 2}), top;
  Status s = layer->Setup({&x, &t}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'sce' (SigmoidCrossEntropyLoss): scores and targets must have the same first "
            "dimension and count: scores 2 3 (6), targets 2 2 (4)");
}

}  // namespace
}  // namespace dtrain
