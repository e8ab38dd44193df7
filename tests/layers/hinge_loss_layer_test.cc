#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Two items, three classes; the margins are e_ij = max(0, 1 - t_ij x_ij), t = +1 at the label:
//   item 0, x = (1, -0.5, 2), label 0: e = (max(0, 1 - 1), 1 - 0.5, 1 + 2) = (0, 0.5, 3)
//   item 1, x = (0.2, 0.3, -3), label 2: e = (1.2, 1.3, 1 + 3) = (1.2, 1.3, 4)
// L1: (3.5 + 6.5) / N = 5; L2: (0 + 0.25 + 9 + 1.44 + 1.69 + 16) / N = 28.38 / 2 = 14.19.
class HingeLossForwardTest : public ::testing::Test {
 protected:
  HingeLossForwardTest() : x_({2, 3}), labels_({2}) {
    FillValues(&x_, {1, -0.5f, 2, 0.2f, 0.3f, -3});
    FillValues(&labels_, {0, 2});
  }
  float Loss(const std::string& extra) {
    layer_ = MakeLayer(R"(name: "hinge" type: "HingeLoss" )" + extra);
    Status s = layer_->Setup({&x_, &labels_}, {&top_});
    EXPECT_TRUE(s.ok()) << s.message();
    float loss = 0;
    s = layer_->Forward({&x_, &labels_}, {&top_}, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(top_.num_axes(), 0);
    EXPECT_FLOAT_EQ(loss, top_.data()[0]);  // default loss weight 1
    return top_.data()[0];
  }
  std::vector<float> Gradient(float top_diff) {
    top_.mutable_diff()[0] = top_diff;
    layer_->Backward({&top_}, {true, false}, {&x_, &labels_});
    return std::vector<float>(x_.diff(), x_.diff() + x_.count());
  }
  Tensor x_, labels_, top_;
  testing::LayerPtr layer_;
};

TEST_F(HingeLossForwardTest, L1ByDefault) {
  EXPECT_NEAR(Loss(""), 5.f, 1e-6);
  EXPECT_NEAR(Loss("hinge_loss_param { norm: L1 }"), 5.f, 1e-6);
}

TEST_F(HingeLossForwardTest, L2) {
  EXPECT_NEAR(Loss("hinge_loss_param { norm: L2 }"), 14.19f, 1e-5);
}

TEST_F(HingeLossForwardTest, L1BackwardByHand) {
  // dx = -t w / N where e > 0, else 0; w = 2, N = 2: item 0 (0, 1, 1), item 1 (1, 1, -1).
  Loss("");
  std::vector<float> want = {0, 1, 1, 1, 1, -1};
  std::vector<float> got = Gradient(2.f);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

TEST_F(HingeLossForwardTest, L2BackwardByHand) {
  // dx = -2 t e w / N; w = 1, N = 2: -t e: item 0 (0, 0.5, 3), item 1 (1.2, 1.3, -4).
  Loss("hinge_loss_param { norm: L2 }");
  std::vector<float> want = {0, 0.5f, 3, 1.2f, 1.3f, -4};
  std::vector<float> got = Gradient(1.f);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

TEST(HingeLossLayerTest, LossLayerTraits) {
  auto layer = MakeLayer(R"(name: "hinge" type: "HingeLoss")");
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_FALSE(layer->AllowForceBackward(1));
}

// Scores on a grid that keeps every x_ij at least 0.05 away from the kinks at +-1.
void CheckHingeGradient(const std::string& param) {
  auto layer = MakeLayer(R"(name: "hinge" type: "HingeLoss" )" + param);
  Tensor x({4, 5, 1, 1}), labels({4, 1, 1, 1}), top;
  testing::FillGaussian(&x, 5, 2.f);
  for (int64_t k = 0; k < x.count(); ++k) {
    float& v = x.mutable_data()[k];
    if (std::fabs(std::fabs(v) - 1.f) < 0.05f) v += 0.1f;
  }
  FillValues(&labels, {0, 4, 2, 2});
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&x, &labels}, {&top}, options);
}

TEST(HingeLossLayerTest, GradientL1) { CheckHingeGradient(""); }
TEST(HingeLossLayerTest, GradientL2) { CheckHingeGradient("hinge_loss_param { norm: L2 }"); }

TEST(HingeLossLayerTest, LabelOutOfRangeIsAnError) {
  auto layer = MakeLayer(R"(name: "hinge" type: "HingeLoss")");
  Tensor x({2, 3}), labels({2}), top;
  FillValues(&labels, {1, 3});
  ASSERT_TRUE(layer->Setup({&x, &labels}, {&top}).ok());
  Status s = layer->Forward({&x, &labels}, {&top}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "layer 'hinge' (HingeLoss): label 3 at position 1 is outside [0, 3)");
}

TEST(HingeLossLayerTest, NeedsOneLabelPerItem) {
  auto layer = MakeLayer(R"(name: "hinge" type: "HingeLoss")");
  Tensor x({2, 3}), labels({2, 3}), top;
  Status s = layer->Setup({&x, &labels}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'hinge' (HingeLoss): needs one label per item: scores 2 3 (6), labels 2 3 (6)");
}

}  // namespace
}  // namespace dtrain
