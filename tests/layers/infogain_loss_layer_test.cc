#include <gtest/gtest.h>

#include <cmath>

#include "core/proto_io.h"
#include "proto/blob.pb.h"
#include "testing/files.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

// Two items, three classes: item 0 has scores (0, ln 2, ln 3), so p = (1/6, 2/6, 3/6), and label 2;
// item 1 has equal scores, p = (1/3, 1/3, 1/3), and label 0. H (row = true label):
//   H = | 1     0.5  0 |    row sums r = (1.5, 1, 2.25)
//       | 0     1    0 |
//       | 0.25  0    2 |
// item 0: -(0.25 ln(1/6) + 2 ln(1/2)) = 0.25 ln 6 + 2 ln 2 = 1.834234
// item 1: -(1 + 0.5) ln(1/3) = 1.5 ln 3 = 1.647918; sum 3.482153.
constexpr double kItem0 = 1.8342342284269044, kItem1 = 1.6479184330021646;

class InfogainLossTest : public ::testing::Test {
 protected:
  InfogainLossTest() : scores_({2, 3}), labels_({2}), h_({3, 3}) {
    FillValues(&scores_, {0, std::log(2.f), std::log(3.f), 0, 0, 0});
    FillValues(&labels_, {2, 0});
    FillValues(&h_, {1, 0.5f, 0, 0, 1, 0, 0.25f, 0, 2});
  }
  // The loss with H as the third bottom.
  float Loss(const std::string& extra) {
    layer_ = MakeLayer(R"(name: "ig" type: "InfogainLoss" )" + extra);
    Status s = layer_->Setup({&scores_, &labels_, &h_}, {&top_});
    EXPECT_TRUE(s.ok()) << s.message();
    float loss = 0;
    s = layer_->Forward({&scores_, &labels_, &h_}, {&top_}, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(top_.num_axes(), 0);
    EXPECT_FLOAT_EQ(loss, top_.data()[0]);  // default loss weight 1
    return top_.data()[0];
  }
  // Writes H to a BlobProto file, as Caffe's tools write them.
  std::string WriteH(const Tensor& h) {
    BlobProto proto;
    h.ToProto(&proto, /*write_diff=*/false);
    const std::string path = dir_.Path("H.binaryproto");
    Status s = WriteBinaryProtoAtomically(path, proto);
    EXPECT_TRUE(s.ok()) << s.message();
    return path;
  }
  Tensor scores_, labels_, h_, top_;
  testing::LayerPtr layer_;
  testing::TempDir dir_;
};

TEST_F(InfogainLossTest, ValidNormalizationByDefault) {
  EXPECT_NEAR(Loss(""), (kItem0 + kItem1) / 2, 1e-6);
}

TEST_F(InfogainLossTest, NormalizationModes) {
  EXPECT_NEAR(Loss("loss_param { normalization: NONE }"), kItem0 + kItem1, 1e-5);
  EXPECT_NEAR(Loss("loss_param { normalization: FULL }"), (kItem0 + kItem1) / 2, 1e-6);
  EXPECT_NEAR(Loss("loss_param { normalization: BATCH_SIZE }"), (kItem0 + kItem1) / 2, 1e-6);
}

TEST_F(InfogainLossTest, IgnoreLabel) {
  // Item 1 (label 0) is ignored: VALID divides by 1, FULL still by 2.
  EXPECT_NEAR(Loss("loss_param { ignore_label: 0 }"), kItem0, 1e-6);
  EXPECT_NEAR(Loss("loss_param { ignore_label: 0 normalization: FULL }"), kItem0 / 2, 1e-6);
  // Everything ignored: the normalizer stays 1, so the loss is 0, not NaN.
  FillValues(&labels_, {0, 0});
  EXPECT_EQ(Loss("loss_param { ignore_label: 0 }"), 0.f);
}

TEST_F(InfogainLossTest, IdentityHIsSoftmaxWithLoss) {
  // -ln(1/2) for item 0 and -ln(1/3) for item 1.
  FillValues(&h_, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  EXPECT_NEAR(Loss(""), (std::log(2.0) + std::log(3.0)) / 2, 1e-6);
}

TEST_F(InfogainLossTest, ClampsAtLogThreshold) {
  // p = (e^-100, ~1) for label 0 with H = identity: -ln(max(e^-100, 1e-20)) = -ln 1e-20 = 46.0517.
  Tensor scores({1, 2}), labels({1}), h({2, 2}), top;
  FillValues(&scores, {0, 100});
  FillValues(&labels, {0});
  FillValues(&h, {1, 0, 0, 1});
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss")");
  ASSERT_TRUE(layer->Setup({&scores, &labels, &h}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&scores, &labels, &h}, {&top}, nullptr).ok());
  EXPECT_NEAR(top.data()[0], -std::log(1e-20), 1e-4);
}

TEST_F(InfogainLossTest, HFromFile) {
  const std::string path = WriteH(h_);
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss" infogain_loss_param { source: ")" +
                         path + R"(" })");
  Status s = layer->Setup({&scores_, &labels_}, {&top_});
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(layer->Forward({&scores_, &labels_}, {&top_}, nullptr).ok());
  EXPECT_NEAR(top_.data()[0], (kItem0 + kItem1) / 2, 1e-6);
}

TEST_F(InfogainLossTest, HFromFileWithLegacyFourDShape) {
  // Caffe's older tools write num/channels/height/width = 1 x 1 x C x C.
  BlobProto proto;
  proto.set_num(1);
  proto.set_channels(1);
  proto.set_height(3);
  proto.set_width(3);
  for (int i = 0; i < 9; ++i) proto.add_data(h_.data()[i]);
  const std::string path = dir_.Path("H4.binaryproto");
  ASSERT_TRUE(WriteBinaryProtoAtomically(path, proto).ok());
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss" infogain_loss_param { source: ")" +
                         path + R"(" })");
  ASSERT_TRUE(layer->Setup({&scores_, &labels_}, {&top_}).ok());
  ASSERT_TRUE(layer->Forward({&scores_, &labels_}, {&top_}, nullptr).ok());
  EXPECT_NEAR(top_.data()[0], (kItem0 + kItem1) / 2, 1e-6);
}

TEST_F(InfogainLossTest, SecondTopIsTheProbabilities) {
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss")");
  Tensor loss, prob;
  ASSERT_TRUE(layer->Setup({&scores_, &labels_, &h_}, {&loss, &prob}).ok());
  ASSERT_TRUE(layer->Forward({&scores_, &labels_, &h_}, {&loss, &prob}, nullptr).ok());
  EXPECT_EQ(prob.shape(), scores_.shape());
  const float want[] = {1 / 6.f, 2 / 6.f, 3 / 6.f, 1 / 3.f, 1 / 3.f, 1 / 3.f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(prob.data()[i], want[i], 1e-6);
  EXPECT_EQ(layer->loss_weight(0), 1.f);
  EXPECT_EQ(layer->loss_weight(1), 0.f);
}

TEST_F(InfogainLossTest, BackwardByHand) {
  // dscores = (p r[label] - H[label]) w / normalizer; w = 1, VALID normalizer 2:
  //   item 0 (r = 2.25): ((1/6) 2.25 - 0.25, (2/6) 2.25, (3/6) 2.25 - 2) / 2
  //                      = (0.0625, 0.375, -0.4375)
  //   item 1 (r = 1.5):  (0.5 - 1, 0.5 - 0.5, 0.5 - 0) / 2 = (-0.25, 0, 0.25)
  // The same from a file H (row sums computed once at setup).
  const float want[] = {0.0625f, 0.375f, -0.4375f, -0.25f, 0, 0.25f};
  Loss("");
  top_.mutable_diff()[0] = 1.f;
  layer_->Backward({&top_}, {true, false, false}, {&scores_, &labels_, &h_});
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(scores_.diff()[i], want[i], 1e-6) << i;

  const std::string path = WriteH(h_);
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss" infogain_loss_param { source: ")" +
                         path + R"(" })");
  ASSERT_TRUE(layer->Setup({&scores_, &labels_}, {&top_}).ok());
  ASSERT_TRUE(layer->Forward({&scores_, &labels_}, {&top_}, nullptr).ok());
  scores_.SetDiff(7.f);  // overwritten, not accumulated
  top_.mutable_diff()[0] = 1.f;
  layer->Backward({&top_}, {true, false}, {&scores_, &labels_});
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(scores_.diff()[i], want[i], 1e-6) << i;
}

TEST(InfogainLossLayerTest, LossLayerTraits) {
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss")");
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_TRUE(layer->AllowForceBackward(0));
  EXPECT_FALSE(layer->AllowForceBackward(1));
  EXPECT_FALSE(layer->AllowForceBackward(2));
}

// Scores N x C x inner around `axis`, H in [0, 1] as a bottom; labels in [0, C) with -1 ignored.
void CheckInfogainGradient(const std::string& param, const std::vector<int>& shape,
                           const std::vector<float>& labels_values) {
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss" )" + param);
  // Labels share the scores' first dimension, as Caffe's loss layers require.
  const int num = shape[0];
  Tensor scores(shape), labels({num, static_cast<int>(labels_values.size()) / num}), h, top;
  const int channels = param.find("axis: -1") != std::string::npos ? shape.back() : shape[1];
  h.Reshape({channels, channels});
  testing::FillGaussian(&scores, 10);
  testing::FillUniform(&h, 11, 0.f, 1.f);
  FillValues(&labels, labels_values);
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&scores, &labels, &h}, {&top}, options);
}

TEST(InfogainLossLayerTest, Gradient) { CheckInfogainGradient("", {2, 4, 3}, {0, 3, 1, 2, 2, 0}); }

TEST(InfogainLossLayerTest, GradientWithIgnoreLabelAndNormalizations) {
  for (const char* norm : {"VALID", "FULL", "BATCH_SIZE", "NONE"}) {
    SCOPED_TRACE(norm);
    CheckInfogainGradient(
        std::string("loss_param { ignore_label: -1 normalization: ") + norm + " }", {2, 4, 3},
        {0, -1, 1, 2, -1, 3});
  }
}

TEST(InfogainLossLayerTest, GradientAlongTheLastAxis) {
  CheckInfogainGradient("infogain_loss_param { axis: -1 }", {2, 3, 4}, {0, 3, 1, 2, 2, 0});
}

TEST(InfogainLossLayerTest, GradientWithHFromFile) {
  testing::TempDir dir;
  Tensor h({4, 4});
  testing::FillUniform(&h, 12, 0.f, 1.f);
  BlobProto proto;
  h.ToProto(&proto, false);
  ASSERT_TRUE(WriteBinaryProtoAtomically(dir.Path("H.binaryproto"), proto).ok());
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss" infogain_loss_param { source: ")" +
                         dir.Path("H.binaryproto") + R"(" })");
  Tensor scores({3, 4}), labels({3}), top;
  testing::FillGaussian(&scores, 13);
  FillValues(&labels, {3, 0, 1});
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&scores, &labels}, {&top}, options);
}

TEST(InfogainLossLayerTest, NeedsASourceWithoutAThirdBottom) {
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss")");
  Tensor scores({2, 3}), labels({2}), top;
  Status s = layer->Setup({&scores, &labels}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'ig' (InfogainLoss): infogain_loss_param.source must name the H matrix file "
            "(a BlobProto) when H is not given as a third bottom");
}

TEST(InfogainLossLayerTest, MissingSourceFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  const std::string path = dir.Path("missing.binaryproto");
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss" infogain_loss_param { source: ")" +
                         path + R"(" })");
  Tensor scores({2, 3}), labels({2}), top;
  Status s = layer->Setup({&scores, &labels}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(
      s.message().rfind(
          "layer 'ig' (InfogainLoss): infogain_loss_param.source: " + path + ": cannot open: ", 0),
      0u)
      << s.message();
}

TEST(InfogainLossLayerTest, HOfTheWrongSizeIsAnError) {
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss")");
  Tensor scores({2, 3}), labels({2}), h({2, 2}), top;
  Status s = layer->Setup({&scores, &labels, &h}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'ig' (InfogainLoss): H (bottom 2) must hold 3 x 3 values for 3 classes, got "
            "2 2 (4)");

  testing::TempDir dir;
  BlobProto proto;
  h.ToProto(&proto, false);
  ASSERT_TRUE(WriteBinaryProtoAtomically(dir.Path("H.binaryproto"), proto).ok());
  auto from_file = MakeLayer(R"(name: "ig" type: "InfogainLoss" infogain_loss_param { source: ")" +
                             dir.Path("H.binaryproto") + R"(" })");
  s = from_file->Setup({&scores, &labels}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'ig' (InfogainLoss): H (infogain_loss_param.source) must hold 3 x 3 values "
            "for 3 classes, got 2 2 (4)");
}

TEST(InfogainLossLayerTest, LegacyNormalizeIsRefused) {
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss" loss_param { normalize: true })");
  Tensor scores({2, 3}), labels({2}), h({3, 3}), top;
  Status s = layer->Setup({&scores, &labels, &h}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'ig' (InfogainLoss): loss_param.normalize is deprecated and not read by "
            "InfogainLoss (as in Caffe); use loss_param.normalization");
}

TEST(InfogainLossLayerTest, LabelErrors) {
  auto layer = MakeLayer(R"(name: "ig" type: "InfogainLoss")");
  Tensor scores({2, 3}), labels({2}), h({3, 3}), top;
  FillValues(&labels, {1, 3});
  ASSERT_TRUE(layer->Setup({&scores, &labels, &h}, {&top}).ok());
  Status s = layer->Forward({&scores, &labels, &h}, {&top}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "layer 'ig' (InfogainLoss): label 3 at position 1 is outside [0, 3)");

  auto counted = MakeLayer(R"(name: "ig" type: "InfogainLoss")");
  Tensor grid({2, 3, 2}), few({2});
  s = counted->Setup({&grid, &few, &h}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "layer 'ig' (InfogainLoss): needs one label per prediction: scores 2 3 2 (12) with "
            "infogain axis 1 need 4 labels, got 2 (2)");
}

}  // namespace
}  // namespace dtrain
