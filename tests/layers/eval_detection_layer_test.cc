// EvalDetection (YOLO v2's test-time scoring, Intel Caffe's): a hand-worked 2 x 2 grid with 2
// anchors and 2 classes through scores, NMS, grouping and matching; the score types; nms < 0
// keeping nothing; Intel's benchmark label (item N) skipped; every refusal's message.
#include "layers/eval_detection_layer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "solver/detection_scores.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

constexpr int kSide = 2, kStride = 7;

std::string Eval(const std::string& extra) {
  return R"(name: "eval" type: "EvalDetection" eval_detection_param { side: 2 num_object: 2
            num_class: 2 biases: 1 biases: 1 biases: 2 biases: 2 )" +
         extra + " }";
}

// The offset in a (1, 14, 2, 2) bottom of value k of anchor n in cell (i, j).
int At(int i, int j, int n, int k) { return ((n * kStride + k) * kSide + j) * kSide + i; }

// Every input 0 (sigmoid 0.5, classes (0.5, 0.5): label 0, box at the cell's centre, anchor 0
// 0.5 x 0.5, anchor 1 1 x 1, MULTIPLY score 0.25) except
//   A, cell (0, 0) anchor 0: objectness ln 4 (0.8), classes (0, ln 3): label 1, q 0.75,
//      score 0.6, box [0, 0.5]^2;
//   B, cell (1, 1) anchor 0: classes (ln 3, 0): label 0, score 0.375, box [0.5, 1]^2.
// Sorted: A, B, then the six of score 0.25 in grid order: C1 = (0, 0) anchor 1 [-0.25, 0.75]^2,
// (1, 0) anchor 0, (1, 0) anchor 1, (0, 1) anchor 0, (0, 1) anchor 1, E = (1, 1) anchor 1
// [0.25, 1.25]^2. NMS 0.3: C1 suppresses (1, 0) anchor 1 and (0, 1) anchor 1 (IoU 0.5 / 1.5 =
// 0.33 each); every other pair stays below 0.3 (A-C1 0.25, B-E 0.25, C1-E 0.25 / 1.75).
// Truth: one class 0 box, [0.5, 1]^2; threshold 0.2. Rows, label 0 first:
//   B [0, 0.375, 1, 0] (IoU 1, claims the truth); C1 [0, 0.25, 0, 0] (IoU 0.0625 / 1.1875:
//   below threshold, neither); (1, 0) anchor 0 [0.5, 1] x [0, 0.5] and (0, 1) anchor 0: IoU 0,
//   [0, 0.25, 0, 0]; E [0, 0.25, 0, 1] (IoU 0.25, the truth already claimed);
//   then A [1, 0.6, 0, 1] (no class 1 truth). Two rows of 8 are left 0.
struct HandCase {
  Tensor x{std::vector<int>{1, 2 * kStride, kSide, kSide}};
  Tensor label{std::vector<int>{1, 1, 3, 8}};
  Tensor top;
  HandCase() {
    x.mutable_data()[At(0, 0, 0, 4)] = std::log(4.f);
    x.mutable_data()[At(0, 0, 0, 6)] = std::log(3.f);
    x.mutable_data()[At(1, 1, 0, 5)] = std::log(3.f);
    // The truth, a padding row and a row of item N (= 1), which Intel's layer skips.
    FillValues(&label, {0, 1, 0, 0.5f, 0.5f, 1, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1,  //
                        1, 1, 0, 0,    0,    1, 1, 0});
  }
};

std::vector<float> RunLayer(const std::string& params, HandCase* c) {
  auto layer = MakeLayer(Eval(params));
  EXPECT_TRUE(layer);
  if (!layer) return {};
  const Status setup = layer->Setup({&c->x, &c->label}, {&c->top});
  EXPECT_TRUE(setup.ok()) << setup.message();
  const Status forward = layer->Forward({&c->x, &c->label}, {&c->top}, nullptr);
  EXPECT_TRUE(forward.ok()) << forward.message();
  return Values(c->top);
}

TEST(EvalDetectionLayerTest, HandWorkedGridGivesCountsThenRowsByLabel) {
  HandCase c;
  const std::vector<float> top = RunLayer("threshold: 0.2 nms: 0.3", &c);
  EXPECT_EQ(c.top.shape(), (std::vector<int>{1, 2 + 2 * 2 * 2 * 4}));
  const std::vector<float> expected = {1, 0,                             // counts
                                       0, 0.375f, 1, 0, 0, 0.25f, 0, 0,  // B, C1
                                       0, 0.25f,  0, 0, 0, 0.25f, 0, 0,  // two anchors 0
                                       0, 0.25f,  0, 1, 1, 0.6f,  0, 1,  // E, A
                                       0, 0,      0, 0, 0, 0,     0, 0};
  ASSERT_EQ(top.size(), expected.size());
  for (size_t k = 0; k < top.size(); ++k) EXPECT_NEAR(top[k], expected[k], 1e-6f) << k;
}

TEST(EvalDetectionLayerTest, ScoreTypesScoreByObjectnessProbabilityOrTheirProduct) {
  // A's row (the only label 1 one, the last kept) under each score type.
  for (const auto& [type, score] : std::vector<std::pair<std::string, float>>{
           {"OBJ", 0.8f}, {"PROB", 0.75f}, {"MULTIPLY", 0.6f}}) {
    HandCase c;
    const std::vector<float> top = RunLayer("threshold: 0.2 nms: 0.3 score_type: " + type, &c);
    bool found = false;
    for (size_t r = 2; r + 4 <= top.size(); r += 4) {
      if (top[r] == 1 && top[r + 1] > 0) {
        EXPECT_NEAR(top[r + 1], score, 1e-6f) << type;
        found = true;
      }
    }
    EXPECT_TRUE(found) << type;
  }
}

TEST(EvalDetectionLayerTest, NegativeNmsKeepsNoDetectionAsIntels) {
  HandCase c;
  const std::vector<float> top = RunLayer("threshold: 0.2", &c);  // nms defaults to -1
  std::vector<float> expected(34, 0.f);
  expected[0] = 1;
  EXPECT_EQ(top, expected);
}

TEST(EvalDetectionLayerTest, ReadsAThirdBottomNotAtAllAndGivesNoGradient) {
  HandCase c;
  Tensor image({1, 3, 4, 4});
  auto layer = MakeLayer(Eval("nms: 0.3"));
  ASSERT_TRUE(layer->Setup({&c.x, &c.label, &image}, {&c.top}).ok());
  ASSERT_TRUE(layer->Forward({&c.x, &c.label, &image}, {&c.top}, nullptr).ok());
  EXPECT_FALSE(layer->HasGradient());
}

std::string Refusal(const std::string& params, Tensor* x, Tensor* label) {
  auto layer = MakeLayer(Eval(params));
  if (!layer) return "no layer";
  Tensor top;
  Status status = layer->Setup({x, label}, {&top});
  if (status.ok()) status = layer->Forward({x, label}, {&top}, nullptr);
  return status.ok() ? "" : status.message();
}

TEST(EvalDetectionLayerTest, RefusesParametersAndInputsByName) {
  const std::string prefix = "layer 'eval' (EvalDetection): ";
  {
    HandCase c;
    EXPECT_EQ(Refusal("biases: 3", &c.x, &c.label),
              prefix +
                  "eval_detection_param.biases must hold 2 num_object = 4 values (a width and a "
                  "height per anchor), got 5");
    EXPECT_EQ(Refusal("threshold: 1.5", &c.x, &c.label),
              prefix + "eval_detection_param.threshold must be in [0, 1], got 1.500000");
    EXPECT_EQ(Refusal("nms: nan", &c.x, &c.label),
              prefix + "eval_detection_param.nms must be finite");
  }
  {
    HandCase c;
    Tensor wrong({1, 13, 2, 2});
    EXPECT_EQ(Refusal("", &wrong, &c.label),
              prefix +
                  "the predictions must hold side^2 num_object (num_class + 5) = 56 values per "
                  "image, got 1 13 2 2 (52)");
  }
  {
    HandCase c;
    Tensor box_data({1, 150});
    EXPECT_EQ(Refusal("", &c.x, &box_data),
              prefix +
                  "the label bottom is 1 150 (150), not AnnotatedData's (1, 1, G, 8) rows [item, "
                  "group_label, instance_id, xmin, ymin, xmax, ymax, difficult], the layout Intel "
                  "Caffe's YOLO layers read (BoxData's (N, 150) rows [class, x, y, w, h] are not "
                  "read)");
  }
  {
    HandCase c;
    c.x.mutable_data()[5] = NAN;
    EXPECT_EQ(Refusal("nms: 0.3", &c.x, &c.label),
              prefix + "prediction value 5 (image 0) is not finite");
  }
  {
    HandCase c;
    c.label.Reshape({1, 1, 1, 8});
    FillValues(&c.label, {0, 3, 0, 0.5f, 0.5f, 1, 1, 0});
    EXPECT_EQ(Refusal("", &c.x, &c.label),
              prefix +
                  "label row 0 has group_label 3.000000: the classes are group_label - 1 in [0, "
                  "num_class = 2)");
    FillValues(&c.label, {2, 1, 0, 0.5f, 0.5f, 1, 1, 0});
    EXPECT_EQ(Refusal("", &c.x, &c.label),
              prefix + "label row 0 names item 2.000000, outside the batch of 1");
  }
}

TEST(EvalDetectionLayerTest, EvalTypeDetectionRefusesItsTopByNameAsIntelsSolverStopsAtIt) {
  // Its top here holds 2 + 32 = 34 values per image; with 5 images 170, a multiple of 5 that
  // DetectionScores alone would misread as rows of 5.
  const char* text = R"(name: "yolo_eval"
layer { name: "data" type: "Input" top: "pred" top: "label"
        input_param { shape { dim: 5 dim: 14 dim: 2 dim: 2 } shape { dim: 1 dim: 1 dim: 1 dim: 8 } } }
layer { name: "eval_det" type: "EvalDetection" bottom: "pred" bottom: "label" top: "eval_det"
        eval_detection_param { side: 2 num_object: 2 num_class: 2 nms: 0.45
                               biases: 1 biases: 1 biases: 2 biases: 2 } })";
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(text, "net", &param).ok());
  NetState state;
  state.set_phase(TEST);
  auto net = Net::Create(param, state, 1);
  ASSERT_TRUE(net.ok()) << net.status().message();
  EXPECT_EQ(RefuseEvalDetectionOutputs(**net).message(),
            "test output 'eval_det' is EvalDetection's (per image: counts per class, then [label, "
            "score, tp, fp] rows), not DetectionEvaluate's rows of 5: eval_type \"detection\" "
            "cannot score it (Intel Caffe's solver stops at it too); eval_type \"classification\" "
            "averages each of its values over the test iterations, as Intel's does");
}

}  // namespace
}  // namespace dtrain
