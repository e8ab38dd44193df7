// BoxAnnotatorOHEM (R-FCN's online hard example mining): hand-worked selections (per image, ties,
// NaN losses, truncated batch indices, regions over height and width), every refusal's message,
// and R-FCN's OHEM head in miniature (PSROIPooling, the two OHEM losses, the annotator and the
// losses after it, wired as Intel Caffe's train_agnostic_ohem.prototxt), which trains and which
// `dtrain check` accepts.
#include "layers/box_annotator_ohem_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::string Annotator(const std::string& param) {
  return R"(name: "ohem" type: "BoxAnnotatorOHEM" box_annotator_ohem_param { )" + param + " }";
}

// Six regions of two images, R-FCN's shapes ((R, 5, 1, 1) rois, (R, 1, 1, 1) losses and labels,
// (R, 2, 1, 1) weights). Batch indices truncate as Caffe's int conversion: -0.5 and 0.7 are image
// 0, 1.7 image 1. So image 0 has regions 0 (loss 0.5), 1 (2) and 3 (2); image 1 has 2 (0.3),
// 4 (NaN) and 5 (0.9). Region r's weights are (r + 1, 10 (r + 1)).
struct Case {
  Tensor rois{{6, 5, 1, 1}}, loss{{6, 1, 1, 1}}, labels{{6, 1, 1, 1}}, weights{{6, 2, 1, 1}};
  Tensor top_labels, top_weights;
  Case() {
    FillValues(&rois, {-0.5f, 0, 0, 4, 4,  //
                       0,     2, 2, 6, 6,  //
                       1,     1, 1, 5, 5,  //
                       0.7f,  0, 0, 3, 3,  //
                       1,     0, 0, 7, 7,  //
                       1.7f,  4, 4, 7, 7});
    FillValues(&loss, {0.5f, 2, 0.3f, 2, kNaN, 0.9f});
    FillValues(&labels, {1, 2, 0, 3, 1, 2});
    FillValues(&weights, {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60});
  }
  TensorVec bottom() { return {&rois, &loss, &labels, &weights}; }
  TensorVec top() { return {&top_labels, &top_weights}; }
  // Runs an annotator with `param`; false (with a test failure) on an error.
  bool Run(const std::string& param) {
    auto layer = MakeLayer(Annotator(param));
    Status s = layer->Setup(bottom(), top());
    if (s.ok()) s = layer->Forward(bottom(), top(), nullptr);
    EXPECT_TRUE(s.ok()) << s.message();
    return s.ok();
  }
};

TEST(BoxAnnotatorOHEMLayerTest, KeepsTheHardestRegionsOfEachImage) {
  // Two per image: image 0 keeps 1 and 3 (loss 2 each) over 0; image 1 keeps 4 (NaN ranks first)
  // and 5 (0.9) over 2. The others get ignore_label -1 and weights 0.
  Case c;
  ASSERT_TRUE(c.Run("roi_per_img: 2"));
  EXPECT_EQ(c.top_labels.shape(), (std::vector<int>{6, 1, 1, 1}));
  EXPECT_EQ(c.top_weights.shape(), (std::vector<int>{6, 2, 1, 1}));
  EXPECT_EQ(Values(c.top_labels), (std::vector<float>{-1, 2, -1, 3, 1, 2}));
  EXPECT_EQ(Values(c.top_weights), (std::vector<float>{0, 0, 2, 20, 0, 0, 4, 40, 5, 50, 6, 60}));
}

TEST(BoxAnnotatorOHEMLayerTest, EqualLossesKeepTheLowerRegionAndIgnoreLabelIsUsed) {
  // One per image: regions 1 and 3 tie at 2 and 1 comes first; image 1 keeps its NaN, region 4.
  Case c;
  ASSERT_TRUE(c.Run("roi_per_img: 1 ignore_label: 255"));
  EXPECT_EQ(Values(c.top_labels), (std::vector<float>{255, 2, 255, 255, 1, 255}));
  EXPECT_EQ(Values(c.top_weights), (std::vector<float>{0, 0, 2, 20, 0, 0, 0, 0, 5, 50, 0, 0}));
}

TEST(BoxAnnotatorOHEMLayerTest, ABudgetBeyondTheRegionsKeepsThemAll) {
  Case c;
  for (const char* param : {"roi_per_img: 3", "roi_per_img: 128", "roi_per_img: 2147483647"}) {
    ASSERT_TRUE(c.Run(param));
    EXPECT_EQ(Values(c.top_labels), Values(c.labels)) << param;
    EXPECT_EQ(Values(c.top_weights), Values(c.weights)) << param;
  }
}

TEST(BoxAnnotatorOHEMLayerTest, RegionsOverHeightAndWidth) {
  // rois (2, 5, 1, 2): region (n, 0, x) has batch index rois[n, 0, 0, x], so regions 0..3 are
  // images 0, 1, 1, 0 with losses 1, 4, 3, 2. One per image: region 3 (2 over 1) and region 1
  // (4 over 3). Weights (2, 2, 1, 2) hold 1..8; region (n, x) has weights at (n, j, 0, x): region
  // 1 (n 0, x 1) at 1 and 3, region 3 (n 1, x 1) at 5 and 7.
  Tensor rois({2, 5, 1, 2}), loss({2, 1, 1, 2}), labels({2, 1, 1, 2}), weights({2, 2, 1, 2});
  FillValues(&rois, {0, 1, 0, 0, 0, 0, 4, 4, 4, 4,  //
                     1, 0, 0, 0, 0, 0, 4, 4, 4, 4});
  FillValues(&loss, {1, 4, 3, 2});
  FillValues(&labels, {10, 11, 12, 13});
  testing::FillIota(&weights, 1);
  Tensor top_labels, top_weights;
  auto layer = MakeLayer(Annotator("roi_per_img: 1"));
  ASSERT_TRUE(layer->Setup({&rois, &loss, &labels, &weights}, {&top_labels, &top_weights}).ok());
  ASSERT_TRUE(
      layer->Forward({&rois, &loss, &labels, &weights}, {&top_labels, &top_weights}, nullptr).ok());
  EXPECT_EQ(top_labels.shape(), (std::vector<int>{2, 1, 1, 2}));
  EXPECT_EQ(top_weights.shape(), (std::vector<int>{2, 2, 1, 2}));
  EXPECT_EQ(Values(top_labels), (std::vector<float>{-1, 11, -1, 13}));
  EXPECT_EQ(Values(top_weights), (std::vector<float>{0, 2, 0, 4, 0, 6, 0, 8}));
}

// Intel's backward does nothing: no bottom is forced to take a gradient, and one that a net needs
// gets 0.
TEST(BoxAnnotatorOHEMLayerTest, NoBottomIsForcedAndOneThatNeedsAGradientGetsZero) {
  Case c;
  auto layer = MakeLayer(Annotator("roi_per_img: 2"));
  ASSERT_TRUE(layer->Setup(c.bottom(), c.top()).ok());
  ASSERT_TRUE(layer->Forward(c.bottom(), c.top(), nullptr).ok());
  for (Tensor* b : c.bottom()) std::fill_n(b->mutable_diff(), b->count(), 7.f);
  layer->Backward(c.top(), {true, false, true, true}, c.bottom());
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(layer->AllowForceBackward(i)) << i;
    const Tensor& b = *c.bottom()[i];
    for (int64_t k = 0; k < b.count(); ++k) {
      ASSERT_EQ(b.diff()[k], i == 1 ? 7.f : 0.f) << "bottom " << i << " value " << k;
    }
  }
}

TEST(BoxAnnotatorOHEMLayerTest, BadParametersAreRefusedByName) {
  Case c;
  auto layer = MakeLayer(R"(name: "ohem" type: "BoxAnnotatorOHEM")");
  EXPECT_EQ(layer->Setup(c.bottom(), c.top()).message(),
            "layer 'ohem' (BoxAnnotatorOHEM): box_annotator_ohem_param.roi_per_img is required");
  layer = MakeLayer(Annotator("roi_per_img: 0"));
  EXPECT_EQ(layer->Setup(c.bottom(), c.top()).message(),
            "layer 'ohem' (BoxAnnotatorOHEM): box_annotator_ohem_param.roi_per_img must be "
            "positive, got 0");
  layer = MakeLayer(Annotator("roi_per_img: 4294967295"));
  EXPECT_EQ(layer->Setup(c.bottom(), c.top()).message(),
            "layer 'ohem' (BoxAnnotatorOHEM): box_annotator_ohem_param.roi_per_img is "
            "4294967295, more than a dimension may be (2147483647)");
  layer = MakeLayer(Annotator("roi_per_img: 2"));
  EXPECT_EQ(layer->Setup({&c.rois, &c.loss, &c.labels}, c.top()).message(),
            "layer 'ohem' (BoxAnnotatorOHEM): bottom takes exactly 4 blob(s), got 3");
}

TEST(BoxAnnotatorOHEMLayerTest, BottomsThatDisagreeAreRefusedNamingTheBottom) {
  Case c;
  const std::string prefix = "layer 'ohem' (BoxAnnotatorOHEM): ";
  auto setup = [&](TensorVec bottom) {
    auto layer = MakeLayer(Annotator("roi_per_img: 2"));
    return layer->Setup(bottom, c.top()).message();
  };
  Tensor four({6, 4}), five_rows({5, 1, 1, 1}), two_channels({6, 2}), weights_rows({5, 8}),
      deep({6, 1, 1, 1, 1});
  EXPECT_EQ(setup({&four, &c.loss, &c.labels, &c.weights}),
            prefix +
                "rois (bottom 0) must have 5 channels (batch index, x1, y1, x2, y2), got 6 "
                "4 (24)");
  EXPECT_EQ(setup({&c.rois, &five_rows, &c.labels, &c.weights}),
            prefix +
                "the per-ROI loss (bottom 1) must be (6, 1, 1, 1) as Caffe reads it, after "
                "the rois (bottom 0), 6 5 1 1 (30); got 5 1 1 1 (5)");
  EXPECT_EQ(setup({&c.rois, &c.loss, &two_channels, &c.weights}),
            prefix +
                "the labels (bottom 2) must be (6, 1, 1, 1) as Caffe reads it, after the "
                "rois (bottom 0), 6 5 1 1 (30); got 6 2 (12)");
  EXPECT_EQ(setup({&c.rois, &c.loss, &c.labels, &weights_rows}),
            prefix +
                "the bbox loss weights (bottom 3) must be (6, B, 1, 1) as Caffe reads it, "
                "after the rois (bottom 0), 6 5 1 1 (30); got 5 8 (40)");
  EXPECT_EQ(setup({&c.rois, &c.loss, &deep, &c.weights}),
            prefix +
                "the labels (bottom 2) has more than 4 axes (Caffe reads num, channels, "
                "height and width), got 6 1 1 1 1 (6)");
}

TEST(BoxAnnotatorOHEMLayerTest, BatchIndicesThatNameNoImageAreErrorsNotCrashes) {
  // Intel Caffe indexes its per-image budgets with the truncated index: -1 reads before them, NaN
  // and 3e9 convert to int undefined.
  for (const auto& [index, shown] : std::vector<std::pair<float, std::string>>{
           {-1.f, "-1"},
           {kNaN, "nan"},
           {3e9f, "3e+09"},
           {-std::numeric_limits<float>::infinity(), "-inf"}}) {
    Case c;
    c.rois.mutable_data()[2 * 5] = index;
    auto layer = MakeLayer(Annotator("roi_per_img: 2"));
    ASSERT_TRUE(layer->Setup(c.bottom(), c.top()).ok());
    EXPECT_EQ(layer->Forward(c.bottom(), c.top(), nullptr).message(),
              "layer 'ohem' (BoxAnnotatorOHEM): rois (bottom 0) region 2: batch index " + shown +
                  " is no image (it must truncate to an int in [0, 2147483647])");
  }
}

TEST(BoxAnnotatorOHEMLayerTest, NoRegionsIsAnError) {
  Tensor rois({0, 5}), loss({0, 1}), labels({0, 1}), weights({0, 8}), top_labels, top_weights;
  auto layer = MakeLayer(Annotator("roi_per_img: 2"));
  ASSERT_TRUE(layer->Setup({&rois, &loss, &labels, &weights}, {&top_labels, &top_weights}).ok());
  EXPECT_EQ(
      layer->Forward({&rois, &loss, &labels, &weights}, {&top_labels, &top_weights}, nullptr)
          .message(),
      "layer 'ohem' (BoxAnnotatorOHEM): rois (bottom 0) holds no region, 0 5 (0) (Intel Caffe "
      "stops too: it needs an image)");
}

// ---- R-FCN's OHEM head in a net ------------------------------------------------------------

// Two images' 8 x 8 feature maps (image 16 x 16 pixels, spatial_scale 0.5), six regions, three per
// image, two classes (class-agnostic boxes: 8 coordinates, as R-FCN's train_agnostic_ohem); score
// maps of 2 x 2 bins per class (group_size 2). The layers from per_roi_loss_cls on are R-FCN's,
// with roi_per_img 2 and the box loss's PRE_FIXED normalizer 2 (R-FCN's 128).
const char* kRfcnOhemNet = R"(
name: "rfcn_ohem"
layer { name: "data" type: "Input" top: "feature" top: "rois" top: "labels" top: "bbox_targets"
        top: "bbox_inside_weights"
        input_param { shape { dim: 2 dim: 4 dim: 8 dim: 8 } shape { dim: 6 dim: 5 dim: 1 dim: 1 }
                      shape { dim: 6 dim: 1 dim: 1 dim: 1 } shape { dim: 6 dim: 8 dim: 1 dim: 1 }
                      shape { dim: 6 dim: 8 dim: 1 dim: 1 } } }
layer { name: "rfcn_cls" type: "Convolution" bottom: "feature" top: "rfcn_cls"
        convolution_param { num_output: 8 kernel_size: 1
                            weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "rfcn_bbox" type: "Convolution" bottom: "feature" top: "rfcn_bbox"
        convolution_param { num_output: 32 kernel_size: 1
                            weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "psroipooled_cls_rois" type: "PSROIPooling" bottom: "rfcn_cls" bottom: "rois"
        top: "psroipooled_cls_rois"
        psroi_pooling_param { spatial_scale: 0.5 output_dim: 2 group_size: 2 } }
layer { name: "ave_cls_score_rois" type: "Pooling" bottom: "psroipooled_cls_rois" top: "cls_score"
        pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layer { name: "psroipooled_loc_rois" type: "PSROIPooling" bottom: "rfcn_bbox" bottom: "rois"
        top: "psroipooled_loc_rois"
        psroi_pooling_param { spatial_scale: 0.5 output_dim: 8 group_size: 2 } }
layer { name: "ave_bbox_pred_rois" type: "Pooling" bottom: "psroipooled_loc_rois" top: "bbox_pred"
        pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layer { name: "per_roi_loss_cls" type: "SoftmaxWithLossOHEM" bottom: "cls_score" bottom: "labels"
        top: "temp_loss_cls" top: "temp_prob_cls" top: "per_roi_loss_cls"
        loss_weight: 0 loss_weight: 0 loss_weight: 0
        propagate_down: false propagate_down: false }
layer { name: "per_roi_loss_bbox" type: "SmoothL1LossOHEM" bottom: "bbox_pred"
        bottom: "bbox_targets" bottom: "bbox_inside_weights"
        top: "temp_loss_bbox" top: "per_roi_loss_bbox" loss_weight: 0 loss_weight: 0
        propagate_down: false propagate_down: false propagate_down: false }
layer { name: "per_roi_loss" type: "Eltwise" bottom: "per_roi_loss_cls"
        bottom: "per_roi_loss_bbox" top: "per_roi_loss"
        propagate_down: false propagate_down: false }
layer { name: "annotator_detector" type: "BoxAnnotatorOHEM" bottom: "rois" bottom: "per_roi_loss"
        bottom: "labels" bottom: "bbox_inside_weights"
        top: "labels_ohem" top: "bbox_loss_weights_ohem"
        box_annotator_ohem_param { roi_per_img: 2 ignore_label: -1 }
        propagate_down: false propagate_down: false propagate_down: false
        propagate_down: false }
layer { name: "silence" type: "Silence" bottom: "temp_loss_cls" bottom: "temp_prob_cls"
        bottom: "temp_loss_bbox" }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "cls_score" bottom: "labels_ohem"
        top: "loss_cls" loss_weight: 1 loss_param { ignore_label: -1 }
        propagate_down: true propagate_down: false }
layer { name: "loss_bbox" type: "SmoothL1LossOHEM" bottom: "bbox_pred" bottom: "bbox_targets"
        bottom: "bbox_loss_weights_ohem" top: "loss_bbox" loss_weight: 1
        loss_param { normalization: PRE_FIXED pre_fixed_normalizer: 2 }
        propagate_down: true propagate_down: false propagate_down: false }
)";

TEST(BoxAnnotatorOHEMNetTest, RfcnOhemHeadTrainsAndCheckAcceptsIt) {
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(kRfcnOhemNet, "net", &param).ok());
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1);
  ASSERT_TRUE(net.ok()) << net.status().message();
  testing::FillGaussian((*net)->blob_by_name("feature"), 41, 1.f);
  FillValues((*net)->blob_by_name("rois"), {0, 0, 0, 7,  7,   //
                                            0, 4, 4, 15, 15,  //
                                            0, 2, 6, 10, 14,  //
                                            1, 0, 0, 15, 15,  //
                                            1, 8, 0, 15, 7,   //
                                            1, 3, 3, 9,  9});
  FillValues((*net)->blob_by_name("labels"), {1, 0, 1, 0, 1, 1});
  testing::FillGaussian((*net)->blob_by_name("bbox_targets"), 42, 0.5f);
  // Agnostic targets: the foreground's four coordinates (4..7) count for regions of class 1.
  Tensor* inside = (*net)->blob_by_name("bbox_inside_weights");
  const std::vector<float> labels = Values(*(*net)->blob_by_name("labels"));
  for (int r = 0; r < 6; ++r) {
    for (int j = 0; j < 8; ++j) inside->mutable_data()[r * 8 + j] = labels[r] == 1 && j >= 4;
  }

  float first = 0, last = 0;
  for (int iter = 0; iter < 40; ++iter) {
    StatusOr<float> loss = (*net)->Forward();
    ASSERT_TRUE(loss.ok()) << loss.status().message();
    ASSERT_TRUE(std::isfinite(*loss)) << "iteration " << iter;
    if (iter == 0) {
      first = *loss;
      // Two of each image's three regions keep their labels; the third is ignored.
      int ignored = 0;
      for (float l : Values(*(*net)->blob_by_name("labels_ohem"))) ignored += l == -1;
      EXPECT_EQ(ignored, 2);
    }
    last = *loss;
    (*net)->ClearParamDiffs();
    (*net)->Backward();
    for (Tensor* p : (*net)->learnable_params()) {
      for (int64_t i = 0; i < p->count(); ++i) p->mutable_data()[i] -= 0.5f * p->diff()[i];
    }
  }
  EXPECT_LT(last, 0.5f * first) << "first " << first << ", last " << last;

  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), kRfcnOhemNet);
  auto result = testing::RunDtrain("check --model=" + dir.Path("net.prototxt"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace
}  // namespace dtrain
