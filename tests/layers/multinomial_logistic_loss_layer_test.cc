#include <gtest/gtest.h>

#include <cmath>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Two items, three classes: item 0 has p = (0.2, 0.5, 0.3) and label 1: -ln 0.5 = 0.693147;
// item 1 has p = (0, 0.9, 0.1) and label 0: p = 0 is clamped at 1e-20: -ln 1e-20 = 46.051702.
// loss = (0.693147 + 46.051702) / N = 23.372425.
class MultinomialLogisticLossTest : public ::testing::Test {
 protected:
  MultinomialLogisticLossTest() : p_({2, 3, 1, 1}), labels_({2, 1, 1, 1}) {
    FillValues(&p_, {0.2f, 0.5f, 0.3f, 0, 0.9f, 0.1f});
    FillValues(&labels_, {1, 0});
    layer_ = MakeLayer(R"(name: "nll" type: "MultinomialLogisticLoss")");
  }
  Tensor p_, labels_, top_;
  testing::LayerPtr layer_;
};

TEST_F(MultinomialLogisticLossTest, ForwardClampsAtLogThreshold) {
  ASSERT_TRUE(layer_->Setup({&p_, &labels_}, {&top_}).ok());
  float loss = 0;
  ASSERT_TRUE(layer_->Forward({&p_, &labels_}, {&top_}, &loss).ok());
  EXPECT_EQ(top_.num_axes(), 0);
  EXPECT_NEAR(top_.data()[0], (std::log(2.0) - std::log(1e-20)) / 2, 1e-5);
  EXPECT_FLOAT_EQ(loss, top_.data()[0]);
}

TEST_F(MultinomialLogisticLossTest, BackwardByHand) {
  // dp[label] = -w / (N max(p[label], 1e-20)), 0 elsewhere; w = 1, N = 2: item 0: -1 / (2 * 0.5)
  // = -1; item 1: -1 / (2e-20) = -5e19.
  ASSERT_TRUE(layer_->Setup({&p_, &labels_}, {&top_}).ok());
  ASSERT_TRUE(layer_->Forward({&p_, &labels_}, {&top_}, nullptr).ok());
  p_.SetDiff(7.f);  // overwritten, not accumulated
  top_.mutable_diff()[0] = 1.f;
  layer_->Backward({&top_}, {true, false}, {&p_, &labels_});
  const float want[] = {0, -1, 0, -5e19f, 0, 0};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(p_.diff()[i], want[i]) << i;
}

TEST_F(MultinomialLogisticLossTest, LossParamIsNotRead) {
  // Caffe's layer has no ignore_label and always divides by N.
  auto layer = MakeLayer(R"(name: "nll" type: "MultinomialLogisticLoss"
                            loss_param { ignore_label: 0 normalization: NONE })");
  ASSERT_TRUE(layer->Setup({&p_, &labels_}, {&top_}).ok());
  ASSERT_TRUE(layer->Forward({&p_, &labels_}, {&top_}, nullptr).ok());
  EXPECT_NEAR(top_.data()[0], (std::log(2.0) - std::log(1e-20)) / 2, 1e-5);
}

TEST(MultinomialLogisticLossLayerTest, LossLayerTraits) {
  auto layer = MakeLayer(R"(name: "nll" type: "MultinomialLogisticLoss")");
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_FALSE(layer->AllowForceBackward(1));
}

TEST(MultinomialLogisticLossLayerTest, Gradient) {
  // Probabilities in [0.5, 1], where -log is smooth enough for a central difference of 1e-2.
  auto layer = MakeLayer(R"(name: "nll" type: "MultinomialLogisticLoss")");
  Tensor p({4, 5}), labels({4}), top;
  testing::FillUniform(&p, 6, 0.5f, 1.f);
  FillValues(&labels, {0, 4, 2, 2});
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&p, &labels}, {&top}, options);
}

TEST(MultinomialLogisticLossLayerTest, LabelOutOfRangeIsAnError) {
  auto layer = MakeLayer(R"(name: "nll" type: "MultinomialLogisticLoss")");
  Tensor p({2, 3}), labels({2}), top;
  FillValues(&labels, {-1, 0});
  ASSERT_TRUE(layer->Setup({&p, &labels}, {&top}).ok());
  Status s = layer->Forward({&p, &labels}, {&top}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'nll' (MultinomialLogisticLoss): label -1 at position 0 is outside [0, 3)");
}

TEST(MultinomialLogisticLossLayerTest, NeedsOneLabelPerItem) {
  auto layer = MakeLayer(R"(name: "nll" type: "MultinomialLogisticLoss")");
  Tensor p({2, 3}), labels({3}), top;
  Status s = layer->Setup({&p, &labels}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'nll' (MultinomialLogisticLoss): needs one label per item: probabilities "
            "2 3 (6), labels 3 (3)");
}

}  // namespace
}  // namespace dtrain
