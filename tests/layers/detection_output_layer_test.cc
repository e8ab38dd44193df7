#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "detection_output_inputs.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string Det(const std::string& param) {
  return R"(name: "det" type: "DetectionOutput" detection_output_param { )" + param + " }";
}

using Inputs = testing::DetectionOutputInputs;

Status SetupAndForward(const std::string& prototxt, Inputs* in) {
  auto layer = MakeLayer(prototxt);
  if (layer == nullptr) return InvalidArgument("not built");
  DT_RETURN_IF_ERROR(layer->Setup(in->bottoms(), in->tops()));
  return layer->Forward(in->bottoms(), in->tops(), nullptr);
}

void ExpectRows(const Tensor& top, const std::vector<std::vector<float>>& rows) {
  ASSERT_EQ(top.shape(), (std::vector<int>{1, 1, static_cast<int>(rows.size()), 7}));
  const std::vector<float> got = Values(top);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int k = 0; k < 7; ++k) EXPECT_NEAR(got[r * 7 + k], rows[r][k], 1e-6f) << r << "," << k;
  }
}

TEST(DetectionOutputLayerTest, RowsByImageLabelAndScore) {
  Inputs in;
  // Above 0.25: class 1 keeps P0 (0.7) and P1 (0.3), which do not overlap; class 2 keeps P1 (0.5).
  Status s = SetupAndForward(Det("num_classes: 3 confidence_threshold: 0.25"), &in);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectRows(in.top, {{0, 1, 0.7f, 0.1f, 0.1f, 0.3f, 0.3f},
                      {0, 1, 0.3f, 0.6f, 0.5f, 0.9f, 0.9f},
                      {0, 2, 0.5f, 0.6f, 0.5f, 0.9f, 0.9f}});
}

TEST(DetectionOutputLayerTest, KeepTopKKeepsTheBestOverAllClasses) {
  Inputs in;
  // Scores 0.7 (1, P0), 0.5 (2, P1), 0.3 (1, P1): the two best, written in label order.
  Status s = SetupAndForward(Det("num_classes: 3 confidence_threshold: 0.25 keep_top_k: 2"), &in);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectRows(in.top, {{0, 1, 0.7f, 0.1f, 0.1f, 0.3f, 0.3f}, {0, 2, 0.5f, 0.6f, 0.5f, 0.9f, 0.9f}});
}

TEST(DetectionOutputLayerTest, NmsPerClassAndTheBackgroundSkipped) {
  Inputs in;
  // P1 moved onto P0 (offsets -4, -4, -6, -6 x 0.1): both boxes are (0.1, 0.1)-(0.3, 0.3), so
  // NMS keeps only the better of them per class: class 1 P0 (0.7), class 2 P1 (0.5). No threshold:
  // every score counts, the background's (class 0) never.
  FillValues(&in.loc, {0, 0, 0, 0, -4, -4, -6, -6});
  Status s = SetupAndForward(Det("num_classes: 3"), &in);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectRows(in.top, {{0, 1, 0.7f, 0.1f, 0.1f, 0.3f, 0.3f}, {0, 2, 0.5f, 0.1f, 0.1f, 0.3f, 0.3f}});
  // background_label_id: -1 is refused with shared locations; with 2 as the background, class 0
  // is scored as well.
  s = SetupAndForward(Det("num_classes: 3 background_label_id: 2"), &in);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectRows(in.top, {{0, 0, 0.2f, 0.1f, 0.1f, 0.3f, 0.3f}, {0, 1, 0.7f, 0.1f, 0.1f, 0.3f, 0.3f}});
}

TEST(DetectionOutputLayerTest, PerClassLocationsAndCenterSize) {
  // One prior (0.2, 0.2)-(0.6, 0.6), variances 0.1 and 0.2; two classes, not sharing locations:
  // the background's offsets are never decoded, class 1's (1, -1, 0, ln 2 / 0.2) as CENTER_SIZE:
  // centre (0.4 + 0.1 x 1 x 0.4, 0.4 - 0.04) = (0.44, 0.36), size (0.4, 0.4 x 2).
  Tensor loc({1, 8}), conf({1, 2}), priors({1, 2, 4}), top;
  FillValues(&loc, {0, 0, 0, 0, 1, -1, 0, std::log(2.f) / 0.2f});
  FillValues(&conf, {0.2f, 0.8f});
  FillValues(&priors, {0.2f, 0.2f, 0.6f, 0.6f, 0.1f, 0.1f, 0.2f, 0.2f});
  auto layer = MakeLayer(Det("num_classes: 2 share_location: false code_type: CENTER_SIZE"));
  ASSERT_TRUE(layer->Setup({&loc, &conf, &priors}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&loc, &conf, &priors}, {&top}, nullptr).ok());
  ExpectRows(top, {{0, 1, 0.8f, 0.24f, -0.04f, 0.64f, 0.76f}});
}

TEST(DetectionOutputLayerTest, NoDetectionGivesOneRowOfMinusOnesPerImage) {
  Inputs in;
  in.loc.Reshape({2, 8});
  in.conf.Reshape({2, 6});
  FillValues(&in.loc, std::vector<float>(16, 0.f));
  FillValues(&in.conf, std::vector<float>(12, 0.1f));
  Status s = SetupAndForward(Det("num_classes: 3 confidence_threshold: 0.5"), &in);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectRows(in.top, {{0, -1, -1, -1, -1, -1, -1}, {1, -1, -1, -1, -1, -1, -1}});
}

TEST(DetectionOutputLayerTest, RefusesBadParametersByName) {
  Inputs in;
  const std::string prefix = "layer 'det' (DetectionOutput): ";
  EXPECT_EQ(SetupAndForward(Det(""), &in).message(),
            prefix + "detection_output_param.num_classes is required");
  EXPECT_EQ(SetupAndForward(Det("num_classes: 0"), &in).message(),
            prefix + "detection_output_param.num_classes must be at least 1");
  EXPECT_EQ(SetupAndForward(Det("num_classes: 3 background_label_id: -1"), &in).message(),
            prefix +
                "detection_output_param.background_label_id -1 with share_location is refused: "
                "the fork skips the shared boxes as if they were the background's and stops "
                "(\"Could not find location predictions for label -1\")");
  EXPECT_EQ(SetupAndForward(Det("num_classes: 3 nms_param { nms_threshold: -0.1 }"), &in).message(),
            prefix +
                "detection_output_param.nms_param.nms_threshold must be non-negative, got "
                "-0.100000");
  EXPECT_EQ(SetupAndForward(Det("num_classes: 3 nms_param { eta: 0 }"), &in).message(),
            prefix + "detection_output_param.nms_param.eta must be in (0, 1], got 0.000000");
  EXPECT_EQ(SetupAndForward(Det("num_classes: 3 visualize: true"), &in).message(),
            prefix +
                "detection_output_param.visualize is not supported: the fork draws the "
                "detections in OpenCV windows; dtrain has no display");
}

TEST(DetectionOutputLayerTest, RefusesBottomsThatDoNotMatchThePriors) {
  const std::string prefix = "layer 'det' (DetectionOutput): ";
  {
    Inputs in;
    in.loc.Reshape({1, 12});
    EXPECT_EQ(SetupAndForward(Det("num_classes: 3"), &in).message(),
              prefix +
                  "Number of priors must match number of location predictions: bottom 0 "
                  "(loc) 1 12 (12) has 12 values per image, 2 priors x 1 location classes x 4 "
                  "= 8");
  }
  {
    Inputs in;
    in.conf.Reshape({1, 4});
    EXPECT_EQ(SetupAndForward(Det("num_classes: 3"), &in).message(),
              prefix +
                  "Number of priors must match number of confidence predictions: bottom 1 "
                  "(conf) 1 4 (4) has 4 values per image, 2 priors x 3 classes = 6");
  }
  {
    Inputs in;
    in.conf.Reshape({2, 3});
    EXPECT_EQ(SetupAndForward(Det("num_classes: 3"), &in).message(),
              prefix +
                  "bottoms 0 (loc) and 1 (conf) must have the same number of images, got "
                  "1 8 (8) and 2 3 (6)");
  }
  {
    Inputs in;
    in.priors.Reshape({1, 1, 16});
    EXPECT_EQ(
        SetupAndForward(Det("num_classes: 3"), &in).message(),
        prefix + "bottom 2 (priors) must be (1, 2, P * 4) as PriorBox writes it, got 1 1 16 (16)");
  }
}

TEST(DetectionOutputLayerTest, RefusesNonFiniteValuesAndFlatPriors) {
  const std::string prefix = "layer 'det' (DetectionOutput): ";
  {
    Inputs in;
    in.conf.mutable_data()[4] = NAN;
    EXPECT_EQ(SetupAndForward(Det("num_classes: 3"), &in).message(),
              prefix + "bottom 1 (conf) value 4 is nan (every value must be finite)");
  }
  {
    Inputs in;
    in.loc.mutable_data()[0] = INFINITY;
    EXPECT_EQ(SetupAndForward(Det("num_classes: 3"), &in).message(),
              prefix + "bottom 0 (loc) value 0 is inf (every value must be finite)");
  }
  {
    Inputs in;
    in.priors.mutable_data()[6] = 0.5f;                             // P1's xmax = its xmin
    EXPECT_TRUE(SetupAndForward(Det("num_classes: 3"), &in).ok());  // CORNER needs no size
    EXPECT_EQ(SetupAndForward(Det("num_classes: 3 code_type: CENTER_SIZE"), &in).message(),
              prefix +
                  "bottom 2 (priors), prior 1: a prior box of width 0.000000 and height "
                  "0.400000 (both must be positive to decode offsets relative to it)");
  }
}

}  // namespace
}  // namespace dtrain
