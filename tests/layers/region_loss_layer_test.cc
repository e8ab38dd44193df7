// RegionLoss (YOLO v2's training loss, Intel Caffe's): a hand-worked 2 x 2 grid with 2 anchors
// and 2 classes (every delta written out), finite-difference checks of the backward against the
// loss the deltas are the gradient of, Intel's overwriting and bias_match rules, and every
// refusal's message.
#include "layers/region_loss_layer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"
#include "testing/net_training.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

constexpr int kSide = 2, kAnchors = 2, kClasses = 2, kStride = kClasses + 5;
constexpr int kChannels = kAnchors * kStride;

std::string Region(const std::string& extra) {
  return R"(name: "loss" type: "RegionLoss" region_loss_param { side: 2 num: 2 num_class: 2
            biases: 1 biases: 1 biases: 2 biases: 2 )" +
         extra + " }";
}

// The offset in an (N, 14, 2, 2) bottom of value k of anchor n in cell (i, j) of image b.
int At(int b, int i, int j, int n, int k) {
  return ((b * kChannels + n * kStride + k) * kSide + j) * kSide + i;
}

// The hand-worked case. One image, every input 0 except tw of anchor 0 in cell (0, 0), 1.5. So
// every sigmoid is 0.5 (sigmoid' 0.25), the class softmax (0.5, 0.5), and the boxes are, per cell
// (i, j), centred at ((i + 0.5) / 2, (j + 0.5) / 2): anchor 0 0.5 x 0.5 (1 x 1 cells), anchor 1
// 1 x 1 (2 x 2 cells). Truth: group_label 2 (class 1), (0.1, 0.1)-(0.5, 0.7): centre (0.3, 0.4),
// size 0.4 x 0.6, in cell (int(0.6), int(0.8)) = (0, 0).
// Step 1, best IoU with the truth, thresh 0.22: cell (0, 0) anchor 1 [-0.25, 0.75]^2: 0.24 / 1 =
// 0.24 > 0.22, so its delta is 0; the others stay below it (cell (0, 1) anchor 0: 0.08 / 0.41 =
// 0.195; cell (0, 1) anchor 1: 0.18 / 1.06; cell (1, 0) anchor 1: 0.15 / 1.09; cell (1, 1)
// anchor 1: 0.1125 / 1.1275; anchor 0 of cells (1, 0) and (1, 1): 0) and get noobject_scale
// p p (1 - p) = 0.125. Cell (0, 0) anchor 0 is the truth's (below).
// Step 2, bias_match: the truth's size 0.4 x 0.6 against anchor 0's 0.5 x 0.5, both centred:
// 0.4 * 0.5 / (0.25 + 0.24 - 0.2) = 0.69; anchor 1's 1 x 1: 0.24. Anchor 0 of cell (0, 0):
//   x: target 0.3 * 2 - 0 = 0.6, D = -(0.6 - 0.5) 0.25 = -0.025;
//   y: target 0.8, D = -(0.8 - 0.5) 0.25 = -0.075;
//   w: target log(0.4 * 2 / 1) = -0.223, difference -0.223 - 1.5 < -1, clipped: D = 1;
//   h: target log(0.6 * 2 / 1) = 0.182, D = -0.182;
//   objectness (object_scale 5): D = -5 * 2 * 0.5^3 * 0.25 = -0.3125;
//   classes: D = -(0 - 0.5) = 0.5 and -(1 - 0.5) = -0.5.
// loss = 6 * 0.125^2 + 0.025^2 + 0.075^2 + 1 + log(1.2)^2 + 0.3125^2 + 2 * 0.25.
struct HandCase {
  Tensor x{std::vector<int>{1, kChannels, kSide, kSide}};
  Tensor label{std::vector<int>{1, 1, 1, 8}};
  Tensor top;
  HandCase() {
    x.mutable_data()[At(0, 0, 0, 0, 2)] = 1.5f;
    FillValues(&label, {0, 2, 0, 0.1f, 0.1f, 0.5f, 0.7f, 0});
  }
};

const char* kHandParams =
    "thresh: 0.22 object_scale: 5 noobject_scale: 1 class_scale: 1 coord_scale: 1";

std::vector<float> HandDeltas() {
  std::vector<float> d(1 * kChannels * kSide * kSide, 0.f);
  for (int j = 0; j < kSide; ++j) {
    for (int i = 0; i < kSide; ++i) {
      if (i == 0 && j == 0) continue;
      d[At(0, i, j, 0, 4)] = 0.125f;
      d[At(0, i, j, 1, 4)] = 0.125f;
    }
  }
  d[At(0, 0, 0, 0, 0)] = -0.025f;
  d[At(0, 0, 0, 0, 1)] = -0.075f;
  d[At(0, 0, 0, 0, 2)] = 1.f;
  d[At(0, 0, 0, 0, 3)] = -std::log(1.2f);
  d[At(0, 0, 0, 0, 4)] = -0.3125f;
  d[At(0, 0, 0, 0, 5)] = 0.5f;
  d[At(0, 0, 0, 0, 6)] = -0.5f;
  return d;
}

TEST(RegionLossLayerTest, HandWorkedGridGivesEveryDeltaAndTheirSquaredSum) {
  HandCase c;
  auto layer = MakeLayer(Region(kHandParams));
  ASSERT_TRUE(layer);
  ASSERT_TRUE(layer->Setup({&c.x, &c.label}, {&c.top}).ok());
  float loss = 0;
  const Status forward = layer->Forward({&c.x, &c.label}, {&c.top}, &loss);
  ASSERT_TRUE(forward.ok()) << forward.message();
  const float expected = 6 * 0.015625f + 0.025f * 0.025f + 0.075f * 0.075f + 1.f +
                         std::log(1.2f) * std::log(1.2f) + 0.3125f * 0.3125f + 0.5f;
  EXPECT_NEAR(c.top.data()[0], expected, 1e-5f);
  EXPECT_NEAR(loss, expected, 1e-5f);  // loss weight 1 by default
  // Backward: D times the top's diff (2 here) over the batch (1), overwriting the bottom's diff.
  c.top.mutable_diff()[0] = 2.f;
  for (int64_t k = 0; k < c.x.count(); ++k) c.x.mutable_diff()[k] = 7.f;
  layer->Backward({&c.top}, {true, false}, {&c.x, &c.label});
  const std::vector<float> d = HandDeltas();
  for (size_t k = 0; k < d.size(); ++k) EXPECT_NEAR(c.x.diff()[k], 2 * d[k], 1e-6f) << k;
}

TEST(RegionLossLayerTest, ThreshZeroesTheNoObjectDeltaOnlyAboveIt) {
  // With thresh 0.25 anchor 1 of cell (0, 0) (best IoU 0.24) gets its no-object delta back.
  HandCase c;
  auto layer = MakeLayer(
      Region("thresh: 0.25 object_scale: 5 noobject_scale: 1 class_scale: 1 coord_scale: 1"));
  ASSERT_TRUE(layer->Setup({&c.x, &c.label}, {&c.top}).ok());
  ASSERT_TRUE(layer->Forward({&c.x, &c.label}, {&c.top}, nullptr).ok());
  c.top.mutable_diff()[0] = 1.f;
  layer->Backward({&c.top}, {true, false}, {&c.x, &c.label});
  EXPECT_NEAR(c.x.diff()[At(0, 0, 0, 1, 4)], 0.125f, 1e-7f);
}

TEST(RegionLossLayerTest, WithoutBiasMatchThePredictedSizeChoosesTheAnchor) {
  // The truth (0.4 x 0.6) fits anchor 0's own size best, but predicted sizes decide without
  // bias_match: anchor 0 predicts e^1.5 / 2 = 2.24 wide (IoU 0.4 * 0.5 / (2.24 * 0.5 + 0.24 - 0.2)
  // = 0.17), anchor 1 (tw = th = -0.5) 2 e^-0.5 / 2 = 0.61 square (IoU 0.24 / 0.37 = 0.65).
  HandCase c;
  c.x.mutable_data()[At(0, 0, 0, 1, 2)] = -0.5f;
  c.x.mutable_data()[At(0, 0, 0, 1, 3)] = -0.5f;
  auto layer = MakeLayer(Region(std::string(kHandParams) + " bias_match: 0"));
  ASSERT_TRUE(layer->Setup({&c.x, &c.label}, {&c.top}).ok());
  ASSERT_TRUE(layer->Forward({&c.x, &c.label}, {&c.top}, nullptr).ok());
  c.top.mutable_diff()[0] = 1.f;
  layer->Backward({&c.top}, {true, false}, {&c.x, &c.label});
  // Anchor 1 is trained: its class deltas are the truth's; anchor 0's objectness is no-object's.
  EXPECT_NEAR(c.x.diff()[At(0, 0, 0, 1, 6)], -0.5f, 1e-6f);
  EXPECT_NEAR(c.x.diff()[At(0, 0, 0, 0, 6)], 0.f, 1e-7f);
  // w: target log(0.4 * 2 / 2) = -0.916, difference -0.416: D = 0.416.
  EXPECT_NEAR(c.x.diff()[At(0, 0, 0, 1, 2)], -(std::log(0.4f) + 0.5f), 1e-6f);
}

TEST(RegionLossLayerTest, ALaterTruthOfTheSameAnchorOverwritesTheEarlier) {
  // Two truths in cell (0, 0) that both pick anchor 0: the second's class (0) wins.
  HandCase c;
  c.label.Reshape({1, 1, 2, 8});
  FillValues(&c.label, {0, 2, 0, 0.1f, 0.1f, 0.5f, 0.7f, 0, 0, 1, 1, 0.1f, 0.1f, 0.5f, 0.7f, 0});
  auto layer = MakeLayer(Region(kHandParams));
  ASSERT_TRUE(layer->Setup({&c.x, &c.label}, {&c.top}).ok());
  ASSERT_TRUE(layer->Forward({&c.x, &c.label}, {&c.top}, nullptr).ok());
  c.top.mutable_diff()[0] = 1.f;
  layer->Backward({&c.top}, {true, false}, {&c.x, &c.label});
  EXPECT_NEAR(c.x.diff()[At(0, 0, 0, 0, 5)], -0.5f, 1e-6f);
  EXPECT_NEAR(c.x.diff()[At(0, 0, 0, 0, 6)], 0.5f, 1e-6f);
}

// The loss whose gradient Intel's deltas are, with the matching of `truths` (each: image, cell
// (i, j), anchor, class, centre box) fixed; every other anchor is trained towards no object (no
// IoU reaches thresh 1).
struct Truth {
  int b, i, j, n, label;
  float x, y, w, h;
};

// The truth of label row `row` (the layer's arithmetic: centre and size from the corners, in
// float), matched to anchor n of cell (i, j).
Truth TruthOf(const std::vector<float>& rows, int row, int i, int j, int n) {
  const float* r = rows.data() + 8 * row;
  return {static_cast<int>(r[0]),
          i,
          j,
          n,
          static_cast<int>(r[1]) - 1,
          (r[3] + r[5]) / 2,
          (r[4] + r[6]) / 2,
          r[5] - r[3],
          r[6] - r[4]};
}

float Huber(float d) { return std::fabs(d) <= 1 ? 0.5f * d * d : std::fabs(d) - 0.5f; }
float Sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }

double ImpliedLoss(const std::vector<float>& x, int items, const std::vector<Truth>& truths,
                   const float* biases) {
  const float object = 5, noobject = 1, klass = 2, coord = 3;
  double e = 0;
  for (int b = 0; b < items; ++b) {
    for (int j = 0; j < kSide; ++j) {
      for (int i = 0; i < kSide; ++i) {
        for (int n = 0; n < kAnchors; ++n) {
          bool trained = false;
          for (const Truth& t : truths) trained |= t.b == b && t.i == i && t.j == j && t.n == n;
          const float p = Sigmoid(x[At(b, i, j, n, 4)]);
          if (!trained) e += noobject * 0.5 * p * p;
        }
      }
    }
  }
  for (const Truth& t : truths) {
    const auto v = [&](int k) { return x[At(t.b, t.i, t.j, t.n, k)]; };
    e += coord * Huber(t.x * kSide - t.i - Sigmoid(v(0)));
    e += coord * Huber(t.y * kSide - t.j - Sigmoid(v(1)));
    e += coord * Huber(std::log(t.w * kSide / biases[2 * t.n]) - v(2));
    e += coord * Huber(std::log(t.h * kSide / biases[2 * t.n + 1]) - v(3));
    const float q = 1 - Sigmoid(v(4));
    e += object * 0.5 * q * q * q * q;
    const double largest = std::max(v(5), v(6));
    const double sum = std::exp(v(5) - largest) + std::exp(v(6) - largest);
    e += klass * -(v(5 + t.label) - largest - std::log(sum));
  }
  return e;
}

// Compares the layer's backward, times N, with central differences of ImpliedLoss.
void CheckAgainstImpliedLoss(const std::string& params, Tensor* x, Tensor* label,
                             const std::vector<Truth>& truths, const float* biases) {
  auto layer = MakeLayer(Region(params));
  ASSERT_TRUE(layer);
  Tensor top;
  ASSERT_TRUE(layer->Setup({x, label}, {&top}).ok());
  const Status forward = layer->Forward({x, label}, {&top}, nullptr);
  ASSERT_TRUE(forward.ok()) << forward.message();
  top.mutable_diff()[0] = 1.f;
  layer->Backward({&top}, {true, false}, {x, label});
  const int items = x->shape(0);
  std::vector<float> values(x->data(), x->data() + x->count());
  for (int64_t k = 0; k < x->count(); ++k) {
    const float h = 1e-2f, keep = values[k];
    values[k] = keep + h;
    const double plus = ImpliedLoss(values, items, truths, biases);
    values[k] = keep - h;
    const double minus = ImpliedLoss(values, items, truths, biases);
    values[k] = keep;
    const double numeric = (plus - minus) / (2 * h);
    const double analytic = double{x->diff()[k]} * items;
    EXPECT_NEAR(analytic, numeric, 2e-3 * std::max(1.0, std::fabs(numeric))) << "value " << k;
  }
}

const char* kCheckParams =
    "thresh: 1 object_scale: 5 noobject_scale: 1 class_scale: 2 coord_scale: 3";

TEST(RegionLossLayerTest, GradientIsThatOfTheImpliedLossWithBiasMatch) {
  // Two images: image 0 has one truth in cell (1, 0) that fits anchor 1 (2 x 2 cells), image 1 a
  // small one in cell (0, 1) (anchor 0) and one in cell (1, 1) whose size differs from its
  // anchor's by more than e (a clipped w delta).
  Tensor x({2, kChannels, kSide, kSide}), label({1, 1, 4, 8});
  testing::FillGaussian(&x, 11, 0.3f);
  const std::vector<float> rows = {0,  2, 0, 0.3f, 0,    1.1f,  0.8f, 0,  //
                                   -1, 0, 0, 0,    0,    0,     0,    0,  //
                                   1,  1, 0, 0.1f, 0.6f, 0.4f,  0.9f, 0,  //
                                   1,  2, 0, 0.7f, 0.6f, 0.72f, 1.1f, 0};
  FillValues(&label, rows);
  const float biases[] = {1, 1, 2, 2};
  // Cells (int(2 x), int(2 y)) and anchors by IoU of sizes: 0.8 x 0.8 in (1, 0): anchor 1
  // (0.64 against 0.25 / 0.64); 0.3 x 0.3 in (0, 1): anchor 0 (0.36 against 0.09); 0.02 x 0.5
  // in (1, 1): anchor 0 (0.04 against 0.01), whose tw target log(0.04) makes a clipped delta.
  const std::vector<Truth> truths = {TruthOf(rows, 0, 1, 0, 1), TruthOf(rows, 2, 0, 1, 0),
                                     TruthOf(rows, 3, 1, 1, 0)};
  CheckAgainstImpliedLoss(std::string(kCheckParams) + " bias_match: 1", &x, &label, truths, biases);
}

TEST(RegionLossLayerTest, GradientIsThatOfTheImpliedLossWithoutBiasMatch) {
  // Predicted sizes near the anchors' (inputs of deviation 0.1): a 0.9 x 0.9 truth in cell
  // (1, 1) fits anchor 1 (about 1 x 1) far better than anchor 0 (about 0.5 x 0.5).
  Tensor x({1, kChannels, kSide, kSide}), label({1, 1, 1, 8});
  testing::FillGaussian(&x, 5, 0.1f);
  const std::vector<float> rows = {0, 1, 0, 0.1f, 0.1f, 1.f, 1.f, 0};
  FillValues(&label, rows);
  const float biases[] = {1, 1, 2, 2};
  const std::vector<Truth> truths = {TruthOf(rows, 0, 1, 1, 1)};
  CheckAgainstImpliedLoss(std::string(kCheckParams) + " bias_match: 0", &x, &label, truths, biases);
}

// Setup and one forward of a RegionLoss; the message of the first error ("" if none).
std::string Refusal(const std::string& params, Tensor* x, Tensor* label) {
  auto layer = MakeLayer(Region(params));
  if (!layer) return "no layer";
  Tensor top;
  Status status = layer->Setup({x, label}, {&top});
  if (status.ok()) status = layer->Forward({x, label}, {&top}, nullptr);
  return status.ok() ? "" : status.message();
}

TEST(RegionLossLayerTest, RefusesParametersByName) {
  HandCase c;
  const std::string prefix = "layer 'loss' (RegionLoss): ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"softmax_tree: 'tree.txt'",
       "region_loss_param.softmax_tree (YOLO 9000's class hierarchy) is not supported"},
      {"class_map: 'map.txt'",
       "region_loss_param.class_map (YOLO 9000's class remapping) is not supported"},
      {"softmax: 0", "region_loss_param.softmax must be 1: the class scores are always a softmax"},
      {"coords: 5", "region_loss_param.coords must be 4 (x, y, w, h), got 5"},
      {"biases: 3",
       "region_loss_param.biases must hold 2 num = 4 values (a width and a height per anchor), "
       "got 5"},
      {"thresh: nan", "region_loss_param.thresh must be finite"},
      {"coord_scale: inf", "region_loss_param.coord_scale must be finite"},
  };
  for (const auto& [params, message] : cases) {
    EXPECT_EQ(Refusal(params, &c.x, &c.label), prefix + message) << params;
  }
  auto zero_side = MakeLayer(R"(name: "loss" type: "RegionLoss" region_loss_param { side: 0 })");
  Tensor top;
  EXPECT_EQ(zero_side->Setup({&c.x, &c.label}, {&top}).message(),
            prefix + "region_loss_param.side must be positive, got 0");
  auto bad_bias = MakeLayer(R"(name: "loss" type: "RegionLoss" region_loss_param { side: 2
      num: 1 num_class: 2 biases: 1 biases: 0 })");
  EXPECT_EQ(bad_bias->Setup({&c.x, &c.label}, {&top}).message(),
            prefix + "region_loss_param.biases[1] must be positive, got 0.000000");
}

TEST(RegionLossLayerTest, RefusesBottomsAndLabelsIntelWouldMisreadByName) {
  const std::string prefix = "layer 'loss' (RegionLoss): ";
  {
    HandCase c;
    Tensor wrong({1, 13, 2, 2});
    EXPECT_EQ(Refusal(kHandParams, &wrong, &c.label),
              prefix +
                  "the predictions must be (N, num (coords + num_class + 1) = 14, side = 2, "
                  "side), got 1 13 2 2 (52)");
  }
  {
    HandCase c;
    Tensor box_data({1, 150});
    EXPECT_EQ(Refusal(kHandParams, &c.x, &box_data),
              prefix +
                  "the label bottom is 1 150 (150), not AnnotatedData's (1, 1, G, 8) rows [item, "
                  "group_label, instance_id, xmin, ymin, xmax, ymax, difficult], the layout Intel "
                  "Caffe's YOLO layers read (BoxData's (N, 150) rows [class, x, y, w, h] are not "
                  "read)");
  }
  const std::vector<std::pair<std::vector<float>, std::string>> rows = {
      {{1, 2, 0, 0.1f, 0.1f, 0.5f, 0.7f, 0}, "label row 0 names item 1, outside the batch of 1"},
      {{-2, 2, 0, 0.1f, 0.1f, 0.5f, 0.7f, 0},
       "label row 0 names item -2.000000, outside the batch of 1"},
      {{0, 3, 0, 0.1f, 0.1f, 0.5f, 0.7f, 0},
       "label row 0 has group_label 3.000000: the classes are group_label - 1 in [0, num_class "
       "= 2)"},
      {{0, 0, 0, 0.1f, 0.1f, 0.5f, 0.7f, 0},
       "label row 0 has group_label 0.000000: the classes are group_label - 1 in [0, num_class "
       "= 2)"},
      {{0, 2, 0, NAN, 0.1f, 0.5f, 0.7f, 0},
       "label row 0 holds a value that is not finite (column 3)"},
      {{0, 2, 0, 0.5f, 0.1f, 0.5f, 0.7f, 0},
       "label row 0: the box has no area (width 0.000000, height 0.600000)"},
      {{0, 2, 0, 0.9f, 0.1f, 1.1f, 0.7f, 0},
       "label row 0: the box's centre (1.000000, 0.400000) lies outside the 2 x 2 grid"},
      {{0, 2, 0, -0.9f, 0.1f, -0.5f, 0.7f, 0},
       "label row 0: the box's centre (-0.700000, 0.400000) lies outside the 2 x 2 grid"},
  };
  for (const auto& [row, message] : rows) {
    HandCase c;
    FillValues(&c.label, row);
    EXPECT_EQ(Refusal(kHandParams, &c.x, &c.label), prefix + message);
  }
}

// ---- in a net ------------------------------------------------------------------------------

// Intel's yolov2_train.prototxt in miniature: its AnnotatedData layer (as written there, with
// its Intel-only sampler and resize fields), darknet's conv + BatchNorm + Scale + leaky ReLU
// blocks, the passthrough (Reorg + Concat), the 1x1 conv_reg of num (num_class + 5) channels
// and RegionLoss with Intel's parameters (smaller: an 8 x 8 grid, 2 anchors, 2 classes); the
// TEST phase adds EvalDetection as Intel's yolov2_test.prototxt does. %DATA% is the data layer.
const char* kYoloNet = R"(
name: "yolov2_mini"
%DATA%
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
        convolution_param { num_output: 8 kernel_size: 3 pad: 1 bias_term: false
                            weight_filler { type: "xavier" } } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "scale1" type: "Scale" bottom: "conv1" top: "conv1" scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" relu_param { negative_slope: 0.1 } }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
        pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "conv2" type: "Convolution" bottom: "pool1" top: "conv2"
        convolution_param { num_output: 8 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" relu_param { negative_slope: 0.1 } }
layer { name: "pool2" type: "Pooling" bottom: "conv2" top: "pool2"
        pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "pass" type: "Convolution" bottom: "pool2" top: "pass"
        convolution_param { num_output: 4 kernel_size: 1 weight_filler { type: "xavier" } } }
layer { name: "reorg" type: "Reorg" bottom: "pass" top: "reorg" reorg_param { stride: 2 } }
layer { name: "pool3" type: "Pooling" bottom: "pool2" top: "pool3"
        pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "conv3" type: "Convolution" bottom: "pool3" top: "conv3"
        convolution_param { num_output: 16 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } } }
layer { name: "concat" type: "Concat" bottom: "reorg" bottom: "conv3" top: "concat"
        concat_param { axis: 1 } }
layer { name: "conv_reg" type: "Convolution" bottom: "concat" top: "conv_reg"
        convolution_param { num_output: 14 kernel_size: 1 weight_filler { type: "gaussian" std: 0.01 } } }
layer { name: "det_loss" type: "RegionLoss" bottom: "conv_reg" bottom: "label" top: "det_loss"
        loss_weight: 1
        region_loss_param { side: 8 num_class: 2 coords: 4 num: 2 softmax: 1 jitter: 0.2
                            rescore: 1 bias_match: 1 object_scale: 5.0 noobject_scale: 1.0
                            class_scale: 1.0 coord_scale: 1.0 absolute: 1 thresh: 0.6 random: 0
                            biases: 1.32 biases: 1.73 biases: 3.19 biases: 4.01 } }
layer { name: "eval_det" type: "EvalDetection" bottom: "conv_reg" bottom: "label" bottom: "data"
        top: "eval_det" include { phase: TEST }
        eval_detection_param { side: 8 num_class: 2 num_object: 2 threshold: 0.5 nms: 0.45
                               score_type: MULTIPLY
                               biases: 1.32 biases: 1.73 biases: 3.19 biases: 4.01 } }
)";

const char* kAnnotatedData = R"(layer { name: "data" type: "AnnotatedData" top: "data" top: "label"
  transform_param { mirror: true mean_value: 104 mean_value: 117 mean_value: 123
    resize_param { prob: 1 resize_mode: WARP height: 64 width: 64 interp_mode: LINEAR
                   interp_mode: AREA interp_mode: NEAREST interp_mode: CUBIC interp_mode: LANCZOS4 }
    emit_constraint { emit_type: CENTER } }
  data_param { source: "no_such_voc_lmdb" batch_size: 2 backend: LMDB }
  annotated_data_param {
    batch_sampler { max_sample: 1 max_trials: 1 }
    batch_sampler { sampler { min_scale: 0.3 max_scale: 1.0 min_aspect_ratio: 0.5
                              max_aspect_ratio: 2.0 }
                    sample_constraint { min_jaccard_overlap: 0.1 } max_sample: 1 max_trials: 50 }
    label_map_file: "labelmap_voc.prototxt" } })";

const char* kInputData = R"(layer { name: "data" type: "Input" top: "data" top: "label"
  input_param { shape { dim: 2 dim: 3 dim: 64 dim: 64 } shape { dim: 1 dim: 1 dim: 3 dim: 8 } } })";

std::string YoloNet(const char* data) {
  std::string text = kYoloNet;
  text.replace(text.find("%DATA%"), 6, data);
  return text;
}

TEST(RegionLossNetTest, IntelsTrainNetInMiniatureChecksAndTrains) {
  testing::TempDir dir;
  // As Intel wrote it (the data set absent): check accepts every layer and field.
  testing::WriteTextFile(dir.Path("annotated.prototxt"), YoloNet(kAnnotatedData));
  auto annotated = testing::RunDtrain("check --model=" + dir.Path("annotated.prototxt"));
  EXPECT_EQ(annotated.exit_code, 0) << annotated.output;
  // With the data as an Input, the shapes are known: check prints RegionLoss and EvalDetection.
  testing::WriteTextFile(dir.Path("input.prototxt"), YoloNet(kInputData));
  auto input = testing::RunDtrain("check --model=" + dir.Path("input.prototxt"));
  EXPECT_EQ(input.exit_code, 0) << input.output;
  EXPECT_NE(input.output.find("RegionLoss"), std::string::npos) << input.output;
  EXPECT_NE(input.output.find("EvalDetection"), std::string::npos) << input.output;

  // A few plain SGD steps on two objects lower the loss.
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(YoloNet(kInputData), "net", &param).ok());
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1);
  ASSERT_TRUE(net.ok()) << net.status().message();
  testing::FillGaussian((*net)->blob_by_name("data"), 3, 1.f);
  FillValues((*net)->blob_by_name("label"), {0,  1,  0,  0.1f, 0.2f, 0.4f, 0.6f, 0,  //
                                             1,  2,  0,  0.5f, 0.5f, 0.9f, 0.8f, 0,  //
                                             -1, -1, -1, -1,   -1,   -1,   -1,   -1});
  const auto [first, last] = testing::TrainWithPlainSgd(**net, 10, 0.01f);
  EXPECT_LT(last, first);
}

}  // namespace
}  // namespace dtrain
