#include <gtest/gtest.h>

#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Four examples, three classes:
//   0: {.1 .5 .4} label 1 -> rank 1
//   1: {.7 .1 .2} label 2 -> rank 2
//   2: {.3 .3 .4} label 0 -> rank 3 (the tie with class 1 counts against it)
//   3: {.2 .1 .7} label 2 -> rank 1
class AccuracyLayerTest : public ::testing::Test {
 protected:
  AccuracyLayerTest() : scores_({4, 3}), labels_({4}) {
    FillValues(&scores_, {.1f, .5f, .4f, .7f, .1f, .2f, .3f, .3f, .4f, .2f, .1f, .7f});
    FillValues(&labels_, {1, 2, 0, 2});
  }
  float Accuracy(const std::string& accuracy_param) {
    auto layer = MakeLayer(R"(name: "acc" type: "Accuracy" )" + accuracy_param);
    Tensor top;
    EXPECT_TRUE(layer->Setup({&scores_, &labels_}, {&top}).ok());
    EXPECT_TRUE(layer->Forward({&scores_, &labels_}, {&top}, nullptr).ok());
    EXPECT_EQ(top.num_axes(), 0);
    return top.data()[0];
  }
  Tensor scores_, labels_;
};

TEST_F(AccuracyLayerTest, Top1) { EXPECT_FLOAT_EQ(Accuracy(""), 0.5f); }
TEST_F(AccuracyLayerTest, Top2) { EXPECT_FLOAT_EQ(Accuracy("accuracy_param { top_k: 2 }"), 0.75f); }
TEST_F(AccuracyLayerTest, Top3) { EXPECT_FLOAT_EQ(Accuracy("accuracy_param { top_k: 3 }"), 1.f); }

TEST_F(AccuracyLayerTest, IgnoreLabel) {
  // Examples 0, 1 and 3 remain; 0 and 3 are right.
  EXPECT_FLOAT_EQ(Accuracy("accuracy_param { ignore_label: 0 }"), 2 / 3.f);
}

TEST_F(AccuracyLayerTest, PerClassTop) {
  auto layer = MakeLayer(R"(name: "acc" type: "Accuracy")");
  Tensor top, per_class;
  ASSERT_TRUE(layer->Setup({&scores_, &labels_}, {&top, &per_class}).ok());
  ASSERT_TRUE(layer->Forward({&scores_, &labels_}, {&top, &per_class}, nullptr).ok());
  ASSERT_EQ(per_class.shape(), (std::vector<int>{3}));
  EXPECT_FLOAT_EQ(per_class.data()[0], 0.f);   // 0 of 1
  EXPECT_FLOAT_EQ(per_class.data()[1], 1.f);   // 1 of 1
  EXPECT_FLOAT_EQ(per_class.data()[2], 0.5f);  // 1 of 2
}

TEST_F(AccuracyLayerTest, SpatialLabelsAlongAxis) {
  // The same four examples laid out as one image of 4 pixels: shape {1, 3, 4}.
  Tensor scores({1, 3, 4}), labels({1, 4}), top;
  for (int n = 0; n < 4; ++n) {
    for (int c = 0; c < 3; ++c) scores.mutable_data()[c * 4 + n] = scores_.data()[n * 3 + c];
  }
  FillValues(&labels, {1, 2, 0, 2});
  auto layer = MakeLayer(R"(name: "acc" type: "Accuracy" accuracy_param { axis: 1 })");
  ASSERT_TRUE(layer->Setup({&scores, &labels}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&scores, &labels}, {&top}, nullptr).ok());
  EXPECT_FLOAT_EQ(top.data()[0], 0.5f);
}

TEST_F(AccuracyLayerTest, LabelOutOfRangeIsAnError) {
  auto layer = MakeLayer(R"(name: "acc" type: "Accuracy")");
  Tensor top;
  FillValues(&labels_, {1, 2, 7, 2});
  ASSERT_TRUE(layer->Setup({&scores_, &labels_}, {&top}).ok());
  Status s = layer->Forward({&scores_, &labels_}, {&top}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'acc'"), std::string::npos) << s.message();
}

TEST_F(AccuracyLayerTest, TopKAboveClassCountIsAnError) {
  auto layer = MakeLayer(R"(name: "acc" type: "Accuracy" accuracy_param { top_k: 4 })");
  Tensor top;
  Status s = layer->Setup({&scores_, &labels_}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'acc'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
