#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "testing/files.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string Eval(const std::string& param) {
  return R"(name: "eval" type: "DetectionEvaluate" detection_evaluate_param { )" + param + " }";
}

// Ground truth of image 0: A (0.1, 0.1)-(0.5, 0.5) class 1; B (0.6, 0.6)-(0.9, 0.9) class 1,
// difficult; C (0.2, 0.2)-(0.4, 0.4) class 2. Image 1 has none; a padding row ends the list.
// Detections (out of score order): image 0 class 1 at 0.8 on (0.1, 0.1)-(0.5, 0.45) (overlap
// with A 0.4 x 0.35 / 0.16 = 0.875), at 0.9 exactly on A, at 0.7 exactly on B; class 2 at 0.6 on
// (0.7, 0.7)-(0.8, 0.8) (no overlap with C); image 1 class 2 at 0.5; DetectionOutput's "nothing"
// row for image 2 (label -1), skipped and not counted.
struct Inputs {
  Tensor det{std::vector<int>{1, 1, 6, 7}};
  Tensor gt{std::vector<int>{1, 1, 4, 8}};
  Tensor top;
  Inputs() {
    FillValues(&det, {0, 1,  0.8f, 0.1f, 0.1f, 0.5f, 0.45f,  //
                      0, 1,  0.9f, 0.1f, 0.1f, 0.5f, 0.5f,   //
                      0, 1,  0.7f, 0.6f, 0.6f, 0.9f, 0.9f,   //
                      0, 2,  0.6f, 0.7f, 0.7f, 0.8f, 0.8f,   //
                      1, 2,  0.5f, 0.1f, 0.1f, 0.2f, 0.2f,   //
                      2, -1, -1,   -1,   -1,   -1,   -1});
    FillValues(&gt, {0,  1,  0,  0.1f, 0.1f, 0.5f, 0.5f, 0,  //
                     0,  1,  1,  0.6f, 0.6f, 0.9f, 0.9f, 1,  //
                     0,  2,  2,  0.2f, 0.2f, 0.4f, 0.4f, 0,  //
                     -1, -1, -1, -1,   -1,   -1,   -1,   -1});
  }
  TensorVec bottoms() { return {&det, &gt}; }
  TensorVec tops() { return {&top}; }
};

Status SetupAndForward(const std::string& prototxt, Inputs* in) {
  auto layer = MakeLayer(prototxt);
  if (layer == nullptr) return InvalidArgument("not built");
  DT_RETURN_IF_ERROR(layer->Setup(in->bottoms(), in->tops()));
  return layer->Forward(in->bottoms(), in->tops(), nullptr);
}

void ExpectRows(const Tensor& top, const std::vector<std::vector<float>>& rows) {
  ASSERT_EQ(top.shape(), (std::vector<int>{1, 1, static_cast<int>(rows.size()), 5}));
  const std::vector<float> got = Values(top);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int k = 0; k < 5; ++k) EXPECT_NEAR(got[r * 5 + k], rows[r][k], 1e-6f) << r << "," << k;
  }
}

TEST(DetectionEvaluateLayerTest, PositivesPerClassThenEachDetectionMarked) {
  Inputs in;
  Status s = SetupAndForward(Eval("num_classes: 3"), &in);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectRows(in.top, {{-1, 1, 2, -1, -1},    // A and B
                      {-1, 2, 1, -1, -1},    // C
                      {0, 1, 0.9f, 1, 0},    // A, first
                      {0, 1, 0.8f, 0, 1},    // A again: a duplicate
                      {0, 1, 0.7f, 1, 0},    // B
                      {0, 2, 0.6f, 0, 1},    // misses C
                      {1, 2, 0.5f, 0, 1}});  // no ground truth in image 1
}

TEST(DetectionEvaluateLayerTest, DifficultGroundTruthLeftOutWhenAsked) {
  Inputs in;
  Status s = SetupAndForward(Eval("num_classes: 3 evaluate_difficult_gt: false"), &in);
  ASSERT_TRUE(s.ok()) << s.message();
  // B no longer counts as a positive, and the detection on it is neither true nor false.
  ExpectRows(in.top, {{-1, 1, 1, -1, -1},
                      {-1, 2, 1, -1, -1},
                      {0, 1, 0.9f, 1, 0},
                      {0, 1, 0.8f, 0, 1},
                      {0, 1, 0.7f, 0, 0},
                      {0, 2, 0.6f, 0, 1},
                      {1, 2, 0.5f, 0, 1}});
}

TEST(DetectionEvaluateLayerTest, NameSizeFileComparesInPixelsWithThePlusOne) {
  // Image 0 is 100 x 200 (h x w). Detection (0, 0)-(0.05, 0.1) is pixels (0, 0)-(10, 10), ground
  // truth (0.05, 0)-(0.1, 0.1) pixels (10, 0)-(20, 10): they share the column x = 10, 1 x 11
  // pixels, over 121 + 121 - 11: 11 / 231 = 0.048. Normalised they only touch (overlap 0).
  Tensor det({1, 1, 1, 7}), gt({1, 1, 1, 8}), top;
  FillValues(&det, {0, 1, 0.9f, 0, 0, 0.05f, 0.1f});
  FillValues(&gt, {0, 1, 0, 0.05f, 0, 0.1f, 0.1f, 0});
  testing::TempDir dir;
  const std::string sizes = dir.Path("sizes.txt");
  { std::ofstream(sizes) << "img0 100 200\nimg1 50 50\n"; }
  auto pixels =
      MakeLayer(Eval("num_classes: 2 overlap_threshold: 0.04 name_size_file: '" + sizes + "'"));
  ASSERT_TRUE(pixels->Setup({&det, &gt}, {&top}).ok());
  ASSERT_TRUE(pixels->Forward({&det, &gt}, {&top}, nullptr).ok());
  EXPECT_EQ(Values(top), (std::vector<float>{-1, 1, 1, -1, -1, 0, 1, 0.9f, 1, 0}));
  auto normalised = MakeLayer(Eval("num_classes: 2 overlap_threshold: 0.04"));
  ASSERT_TRUE(normalised->Setup({&det, &gt}, {&top}).ok());
  ASSERT_TRUE(normalised->Forward({&det, &gt}, {&top}, nullptr).ok());
  EXPECT_EQ(Values(top), (std::vector<float>{-1, 1, 1, -1, -1, 0, 1, 0.9f, 0, 1}));
}

TEST(DetectionEvaluateLayerTest, RefusesBadParametersByName) {
  Inputs in;
  const std::string prefix = "layer 'eval' (DetectionEvaluate): ";
  EXPECT_EQ(SetupAndForward(Eval(""), &in).message(),
            prefix + "detection_evaluate_param.num_classes is required");
  EXPECT_EQ(SetupAndForward(Eval("num_classes: 0"), &in).message(),
            prefix + "detection_evaluate_param.num_classes must be at least 1");
  EXPECT_EQ(SetupAndForward(Eval("num_classes: 3 background_label_id: 3"), &in).message(),
            prefix +
                "detection_evaluate_param.background_label_id 3 must be below num_classes 3 "
                "(or 4294967295 for none)");
  EXPECT_EQ(SetupAndForward(Eval("num_classes: 3 overlap_threshold: 0"), &in).message(),
            prefix + "detection_evaluate_param.overlap_threshold must be positive, got 0.000000");
  EXPECT_EQ(
      SetupAndForward(Eval("num_classes: 3 name_size_file: '/nonexistent/sizes'"), &in).message(),
      prefix + "cannot read detection_evaluate_param.name_size_file '/nonexistent/sizes'");
  EXPECT_EQ(
      SetupAndForward(Eval("num_classes: 3 resize_param { height: 0 width: 300 }"), &in).message(),
      prefix + "detection_evaluate_param.resize_param.height must be positive");
  EXPECT_EQ(
      SetupAndForward(Eval("num_classes: 3 resize_param { resize_mode: FIT_SMALL_SIZE height: 300 "
                           "width: 300 height_scale: 10 width_scale: 10 }"),
                      &in)
          .message(),
      prefix +
          "detection_evaluate_param.resize_param.height_scale and width_scale with "
          "FIT_SMALL_SIZE are not implemented");
  testing::TempDir dir;
  const std::string sizes = dir.Path("sizes.txt");
  { std::ofstream(sizes) << "img0 100 200\nimg1 -5 50\n"; }
  EXPECT_EQ(SetupAndForward(Eval("num_classes: 3 name_size_file: '" + sizes + "'"), &in).message(),
            prefix + "detection_evaluate_param.name_size_file '" + sizes +
                "' line 2: expected \"name height width\" with positive sizes, got \"img1 -5 "
                "50\"");
}

TEST(DetectionEvaluateLayerTest, RefusesBadBottoms) {
  const std::string prefix = "layer 'eval' (DetectionEvaluate): ";
  {
    Inputs in;
    in.det.mutable_data()[7 + 1] = 0;  // a detection of the background class
    EXPECT_EQ(SetupAndForward(Eval("num_classes: 3"), &in).message(),
              prefix + "bottom 0 (detections) row 1 has the background label 0");
  }
  {
    Inputs in;
    in.gt.mutable_data()[8 + 1] = 0;
    EXPECT_EQ(SetupAndForward(Eval("num_classes: 3"), &in).message(),
              prefix + "bottom 1 (ground truth) row 1 has the background label 0");
  }
  {
    Inputs in;
    in.det.mutable_data()[2 * 7 + 3] = NAN;
    EXPECT_EQ(SetupAndForward(Eval("num_classes: 3"), &in).message(),
              prefix +
                  "bottom 0 (detections) row 2 has the value nan (every value must be "
                  "finite)");
  }
  {
    Inputs in;
    in.gt.Reshape({1, 1, 4, 7});
    EXPECT_EQ(SetupAndForward(Eval("num_classes: 3"), &in).message(),
              prefix + "bottom 1 (ground truth) must be (1, 1, G, 8), got 1 1 4 7 (28)");
  }
  {
    Inputs in;
    in.det.Reshape({2, 1, 3, 7});
    EXPECT_EQ(SetupAndForward(Eval("num_classes: 3"), &in).message(),
              prefix + "bottom 0 (detections) must be (1, 1, D, 7), got 2 1 3 7 (42)");
  }
}

}  // namespace
}  // namespace dtrain
