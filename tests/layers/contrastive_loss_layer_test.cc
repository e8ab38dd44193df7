#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Three pairs of 2-d features:
//   pair 0: a = (1, 2), b = (1, 0): a - b = (0, 2), d^2 = 4, d = 2; similar (y = 1): l = 4.
//   pair 1: a = (0, 0), b = (0.3, 0.4): a - b = (-0.3, -0.4), d^2 = 0.25, d = 0.5; dissimilar
//           (y = 0): l = max(1 - 0.5, 0)^2 = 0.25, legacy max(1 - 0.25, 0) = 0.75.
//   pair 2: a = (3, 0), b = (0, 4): a - b = (3, -4), d^2 = 25, d = 5; dissimilar, beyond the
//           margin: l = 0 in both forms.
// loss = sum l / (2 N), N = 3: (4 + 0.25) / 6 = 0.708333, legacy (4 + 0.75) / 6 = 0.791667.
class ContrastiveLossForwardTest : public ::testing::Test {
 protected:
  ContrastiveLossForwardTest() : a_({3, 2, 1, 1}), b_({3, 2, 1, 1}), y_({3, 1, 1, 1}) {
    FillValues(&a_, {1, 2, 0, 0, 3, 0});
    FillValues(&b_, {1, 0, 0.3f, 0.4f, 0, 4});
    FillValues(&y_, {1, 0, 0});
  }
  float Loss(const std::string& extra) {
    layer_ = MakeLayer(R"(name: "pair" type: "ContrastiveLoss" )" + extra);
    Status s = layer_->Setup({&a_, &b_, &y_}, {&top_});
    EXPECT_TRUE(s.ok()) << s.message();
    float loss = 0;
    s = layer_->Forward({&a_, &b_, &y_}, {&top_}, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(top_.num_axes(), 0);
    EXPECT_FLOAT_EQ(loss, top_.data()[0]);  // default loss weight 1
    return top_.data()[0];
  }
  Tensor a_, b_, y_, top_;
  testing::LayerPtr layer_;
};

TEST_F(ContrastiveLossForwardTest, Default) { EXPECT_NEAR(Loss(""), 4.25 / 6, 1e-6); }

TEST_F(ContrastiveLossForwardTest, LegacyVersion) {
  EXPECT_NEAR(Loss("contrastive_loss_param { legacy_version: true }"), 4.75 / 6, 1e-6);
}

TEST_F(ContrastiveLossForwardTest, Margin) {
  // margin 2: pair 1 gives (2 - 0.5)^2 = 2.25 (legacy 2 - 0.25 = 1.75); pair 2 is still beyond.
  EXPECT_NEAR(Loss("contrastive_loss_param { margin: 2 }"), 6.25 / 6, 1e-6);
  EXPECT_NEAR(Loss("contrastive_loss_param { margin: 2 legacy_version: true }"), 5.75 / 6, 1e-6);
}

TEST_F(ContrastiveLossForwardTest, PairLabelIsReadAsAnInt) {
  // 0.7 truncates to 0 (dissimilar), 2 is non-zero (similar): the same loss as {1, 0, 0}.
  FillValues(&y_, {2, 0.7f, 0});
  EXPECT_NEAR(Loss(""), 4.25 / 6, 1e-6);
}

TEST_F(ContrastiveLossForwardTest, BackwardByHand) {
  // With w = 2: similar pair 0: da = w / N (a - b) = (0, 4/3). Dissimilar pair 1 inside the
  // margin: da = w / N * -(m - d) / (d + 1e-4) * (a - b) = 2/3 * -0.5 / 0.5001 * (-0.3, -0.4).
  // Pair 2 is beyond the margin: 0. db = -da.
  Loss("");
  top_.mutable_diff()[0] = 2.f;
  layer_->Backward({&top_}, {true, true, false}, {&a_, &b_, &y_});
  const float g = 2.f / 3 * -0.5f / 0.5001f;
  const float want[] = {0, 4.f / 3, -0.3f * g, -0.4f * g, 0, 0};
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(a_.diff()[i], want[i], 1e-6) << i;
    EXPECT_NEAR(b_.diff()[i], -want[i], 1e-6) << i;
  }
}

TEST_F(ContrastiveLossForwardTest, LegacyBackwardByHand) {
  // Legacy: a dissimilar pair inside the margin (m - d^2 > 0) gets da = -w / N (a - b).
  Loss("contrastive_loss_param { legacy_version: true }");
  top_.mutable_diff()[0] = 1.f;
  layer_->Backward({&top_}, {true, true, false}, {&a_, &b_, &y_});
  const float want[] = {0, 2.f / 3, 0.1f, 0.4f / 3, 0, 0};
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(a_.diff()[i], want[i], 1e-6) << i;
    EXPECT_NEAR(b_.diff()[i], -want[i], 1e-6) << i;
  }
}

TEST(ContrastiveLossLayerTest, LossLayerTraits) {
  auto layer = MakeLayer(R"(name: "pair" type: "ContrastiveLoss")");
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_TRUE(layer->AllowForceBackward(1));
  EXPECT_FALSE(layer->AllowForceBackward(2));
}

// Random features in [-1, 1]^4 put d near 1 (the margin) only by chance; fixed seeds avoid it.
void CheckContrastiveGradient(const std::string& param) {
  auto layer = MakeLayer(R"(name: "pair" type: "ContrastiveLoss" )" + param);
  Tensor a({5, 4}), b({5, 4, 1, 1}), y({5}), top;
  testing::FillUniform(&a, 3, -1, 1);
  testing::FillUniform(&b, 4, -1, 1);
  FillValues(&y, {1, 0, 0, 1, 0});
  testing::GradientCheckOptions options;
  options.bottoms = {0, 1};
  testing::CheckGradients(*layer, {&a, &b, &y}, {&top}, options);
}

TEST(ContrastiveLossLayerTest, Gradient) { CheckContrastiveGradient(""); }

TEST(ContrastiveLossLayerTest, GradientLegacy) {
  CheckContrastiveGradient("contrastive_loss_param { legacy_version: true margin: 2 }");
}

TEST(ContrastiveLossLayerTest, FeatureShapesMustAgree) {
  auto layer = MakeLayer(R"(name: "pair" type: "ContrastiveLoss")");
  Tensor a({2, 3}), b({2, 4}), y({2}), top;
  Status s = layer->Setup({&a, &b, &y}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'pair' (ContrastiveLoss): feature bottoms a and b must have the same first "
            "dimension and count per item: 2 3 (6) vs 2 4 (8)");
}

TEST(ContrastiveLossLayerTest, NeedsOnePairLabelPerItem) {
  auto layer = MakeLayer(R"(name: "pair" type: "ContrastiveLoss")");
  Tensor a({2, 3}), b({2, 3}), y({3}), top;
  Status s = layer->Setup({&a, &b, &y}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'pair' (ContrastiveLoss): needs one pair label per item: features 2 3 (6) "
            "need 2 labels, got 3 (3)");
}

}  // namespace
}  // namespace dtrain
