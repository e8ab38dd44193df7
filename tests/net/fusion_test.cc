// Layer fusion (Layer::Absorb, Net::FuseLayers): a net whose BatchNorm absorbs the Scale and ReLU
// after it, or whose 1x1 or depthwise Convolution absorbs BatchNorm, Scale and ReLU, computes what
// the same net computes layer by layer (fuse_layers: false, reference kernels): loss, every
// learnable gradient, the input's gradient and BatchNorm's running statistics, over two iterations,
// in TRAIN and in TEST, on every engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/net_agreement.h"

namespace dtrain {
namespace {

using testing::RelativeError;

constexpr double kTolerance = 1e-4;  // max |fused - separate| / max |separate|, as the harness

std::unique_ptr<Net> Build(const std::string& text, Phase phase, bool fuse,
                           const std::string& engine) {
  NetParameter param;
  Status parsed = ParseTextProto(text, "net", &param);
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  param.set_fuse_layers(fuse);
  NetState state;
  state.set_phase(phase);
  auto net = Net::Create(param, state, 1, engine);
  EXPECT_TRUE(net.ok()) << net.status().message();
  return net.ok() ? std::move(net).value() : nullptr;
}

// Two forward/backward passes of both nets; every blob and parameter compared after each.
void ExpectSameTraining(const std::string& text, Phase phase, const std::string& engine,
                        const std::vector<std::string>& absorbed) {
  SCOPED_TRACE(std::string(phase == TRAIN ? "TRAIN" : "TEST") + ", engine '" + engine + "'");
  auto fused = Build(text, phase, true, engine);
  auto separate = Build(text, phase, false, "REFERENCE");
  ASSERT_TRUE(fused && separate);
  for (const std::string& name : absorbed) {
    EXPECT_TRUE(fused->layer_by_name(name)->absorbed()) << name << " was not absorbed";
    EXPECT_FALSE(separate->layer_by_name(name)->absorbed()) << name;
  }
  for (int iteration = 0; iteration < 2; ++iteration) {
    SCOPED_TRACE("iteration " + std::to_string(iteration));
    StatusOr<float> fused_loss = fused->Forward();
    StatusOr<float> separate_loss = separate->Forward();
    ASSERT_TRUE(fused_loss.ok() && separate_loss.ok());
    EXPECT_NEAR(*fused_loss, *separate_loss, kTolerance * std::max(1.f, std::abs(*separate_loss)));
    fused->ClearParamDiffs();
    separate->ClearParamDiffs();
    fused->Backward();
    separate->Backward();
    for (const char* blob : {"x", "y"}) {
      EXPECT_LE(RelativeError(*fused->blob_by_name(blob), *separate->blob_by_name(blob), false),
                kTolerance)
          << blob << " data";
    }
    EXPECT_LE(RelativeError(*fused->blob_by_name("x"), *separate->blob_by_name("x"), true),
              kTolerance)
        << "input gradient";
    testing::ExpectSameParameters(*fused, *separate, kTolerance);
  }
}

void ExpectSameTrainingEverywhere(const std::string& text,
                                  const std::vector<std::string>& absorbed) {
  for (Phase phase : {TRAIN, TEST}) {
    for (const char* engine : {"", "REFERENCE"}) ExpectSameTraining(text, phase, engine, absorbed);
  }
}

// DummyData x (4 x 6 x 5 x 5) and target t; a convolution c (16 channels: oneDNN's blocked
// layout) before the tested layers, whose top ends in blob y, and a loss on y.
std::string NetAround(const std::string& layers, int y_channels = 16) {
  return R"(
    force_backward: true
    layer { name: "data" type: "DummyData" top: "x" top: "t"
            dummy_data_param { refill: false shape { dim: 4 dim: 6 dim: 5 dim: 5 }
                               shape { dim: 4 dim: )" +
         std::to_string(y_channels) + R"( dim: 5 dim: 5 }
                               data_filler { type: "gaussian" std: 1 }
                               data_filler { type: "gaussian" std: 1 } } }
    layer { name: "c" type: "Convolution" bottom: "x" top: "c"
            convolution_param { num_output: 16 kernel_size: 3 pad: 1 bias_term: false
                                weight_filler { type: "gaussian" std: 0.3 } } }
    )" + layers +
         R"(
    layer { name: "loss" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "loss" })";
}

// Builds NetAround(layers) with fusion on and checks that layer `name` runs by itself.
void ExpectNotAbsorbed(const std::string& layers, const std::string& name) {
  auto net = Build(NetAround(layers), TRAIN, true, "");
  ASSERT_TRUE(net);
  EXPECT_FALSE(net->layer_by_name(name)->absorbed()) << name;
}

// Scale's learned values away from 1 and 0, so that a scale or shift left out shows.
const char* kScaleFillers = R"(filler { type: "uniform" min: 0.5 max: 2 }
                               bias_filler { type: "uniform" min: -1 max: 1 })";

TEST(Fusion, BatchNormScaleReluInPlaceEqualsSeparateLayers) {
  ExpectSameTrainingEverywhere(NetAround(std::string(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "c" top: "c" }
    layer { name: "scale" type: "Scale" bottom: "c" top: "c"
            scale_param { bias_term: true )") +
                                         kScaleFillers + R"( } }
    layer { name: "relu" type: "ReLU" bottom: "c" top: "c" }
    layer { name: "y" type: "Convolution" bottom: "c" top: "y"
            convolution_param { num_output: 16 kernel_size: 1
                                weight_filler { type: "gaussian" std: 0.3 } } })"),
                               {"scale", "relu"});
}

TEST(Fusion, BatchNormIntoANewTopThenScaleWithoutBias) {
  ExpectSameTrainingEverywhere(NetAround(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "c" top: "y" }
    layer { name: "scale" type: "Scale" bottom: "y" top: "y"
            scale_param { filler { type: "uniform" min: 0.5 max: 2 } } })"),
                               {"scale"});
}

TEST(Fusion, BatchNormReluWithoutScale) {
  ExpectSameTrainingEverywhere(NetAround(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "c" top: "y" }
    layer { name: "relu" type: "ReLU" bottom: "y" top: "y" })"),
                               {"relu"});
}

// A frozen Scale (lr_mult 0) gets no gradient; a leaky ReLU is not absorbed.
TEST(Fusion, FrozenScaleAndLeakyReluStaySeparate) {
  ExpectSameTrainingEverywhere(NetAround(std::string(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "c" top: "y" }
    layer { name: "scale" type: "Scale" bottom: "y" top: "y"
            param { lr_mult: 0 } param { lr_mult: 0 }
            scale_param { bias_term: true )") +
                                         kScaleFillers + R"( } }
    layer { name: "leaky" type: "ReLU" bottom: "y" top: "y" relu_param { negative_slope: 0.1 } })"),
                               {"scale"});
  ExpectNotAbsorbed(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "c" top: "y" }
    layer { name: "leaky" type: "ReLU" bottom: "y" top: "y" relu_param { negative_slope: 0.1 } })",
                    "leaky");
}

// BatchNorm right on the data, with no force_backward: nothing below it needs a gradient, but the
// Scale it absorbs still learns.
TEST(Fusion, BatchNormOnTheInputStillTrainsItsScale) {
  std::string text = NetAround(std::string(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "x" top: "y" }
    layer { name: "scale" type: "Scale" bottom: "y" top: "y"
            scale_param { bias_term: true )") +
                                   kScaleFillers + R"( } })",
                               /*y_channels=*/6);
  text.replace(text.find("force_backward: true"), 20, "");
  for (const char* engine : {"", "REFERENCE"}) {
    auto fused = Build(text, TRAIN, true, engine);
    auto separate = Build(text, TRAIN, false, "REFERENCE");
    ASSERT_TRUE(fused && separate);
    ASSERT_TRUE(fused->layer_by_name("scale")->absorbed());
    ASSERT_TRUE(fused->Forward().ok() && separate->Forward().ok());
    fused->ClearParamDiffs();
    separate->ClearParamDiffs();
    fused->Backward();
    separate->Backward();
    const auto& want = separate->layer_by_name("scale")->blobs();
    const auto& got = fused->layer_by_name("scale")->blobs();
    for (size_t b = 0; b < want.size(); ++b) {
      double magnitude = 0;
      for (int64_t i = 0; i < want[b]->count(); ++i) magnitude += std::abs(want[b]->diff()[i]);
      EXPECT_GT(magnitude, 0.0) << "blob " << b << " learns";
      EXPECT_LE(RelativeError(*got[b], *want[b], true), kTolerance) << engine << " blob " << b;
    }
  }
}

// A batch large enough for the blocked kernel's paths that small nets never take (chunks of
// channel blocks in both passes, streaming stores; 120 channels: a part-filled 16-channel block),
// with values far from zero (mean 100, std 0.5), where a naive one-pass variance loses its digits.
// oneDNN 2.6's own kernel misses the input gradient there by 0.34 of its largest value. In place
// on a copy of the input (scaled by 2), or from the input into a new top.
std::string LargeOffsetNet(bool in_place) {
  const std::string bottom = in_place ? "c" : "x";
  const std::string top = in_place ? "c" : "y";
  std::string text = R"(
    force_backward: true
    layer { name: "data" type: "DummyData" top: "x" top: "t"
            dummy_data_param { refill: false shape { dim: 2 dim: 120 dim: 96 dim: 96 }
                               shape { dim: 2 dim: 120 dim: 96 dim: 96 }
                               data_filler { type: "gaussian" mean: 100 std: 0.5 }
                               data_filler { type: "gaussian" std: 1 } } })";
  if (in_place) {
    text += R"(
    layer { name: "c" type: "Power" bottom: "x" top: "c" power_param { scale: 2 } })";
  }
  text += R"(
    layer { name: "bn" type: "BatchNorm" bottom: ")" +
          bottom + R"(" top: ")" + top + R"(" }
    layer { name: "scale" type: "Scale" bottom: ")" +
          top + R"(" top: ")" + top + R"("
            scale_param { bias_term: true )" +
          kScaleFillers + R"( } }
    layer { name: "relu" type: "ReLU" bottom: ")" +
          top + R"(" top: ")" + top + R"(" })";
  if (in_place) {
    text += R"(
    layer { name: "y" type: "Power" bottom: "c" top: "y" })";
  }
  return text + R"(
    layer { name: "loss" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "loss" })";
}

TEST(Fusion, LargeBatchNormFarFromZeroIntoANewTop) {
  for (const char* engine : {"", "ONEDNN"}) {
    ExpectSameTraining(LargeOffsetNet(false), TRAIN, engine, {"scale", "relu"});
  }
}

TEST(Fusion, LargeBatchNormFarFromZeroInPlace) {
  ExpectSameTraining(LargeOffsetNet(true), TRAIN, "", {"scale", "relu"});
}

// A Scale over two axes is not a per-channel affine: it runs by itself.
TEST(Fusion, ScaleThatIsNotPerChannelIsNotAbsorbed) {
  ExpectNotAbsorbed(R"(
    layer { name: "bn" type: "BatchNorm" bottom: "c" top: "y" }
    layer { name: "scale" type: "Scale" bottom: "y" top: "y" scale_param { num_axes: 2 } })",
                    "scale");
}

// A widening 1x1 convolution (16 -> 96 channels) takes BatchNorm, Scale and ReLU in TRAIN on the
// default engine (the folded op); in TEST (global statistics) and on the reference engine the
// BatchNorm takes the Scale and ReLU instead. Each way equals the separate layers. The BatchNorm is
// BVLC's (use_weight_bias: false): without a Scale after it, Intel Caffe's rule would give it a
// scale of its own (net/intel_batch_norm.h), which no convolution folds.
std::string ExpandingLayers(const std::string& input, const std::string& after_batch_norm) {
  return R"(
    layer { name: "e" type: "Convolution" bottom: ")" +
         input + R"(" top: "e"
            convolution_param { num_output: 96 kernel_size: 1 bias_term: false
                                weight_filler { type: "gaussian" std: 0.2 } } }
    layer { name: "bn" type: "BatchNorm" bottom: "e" top: "e"
            batch_norm_param { use_weight_bias: false } })" +
         after_batch_norm + R"(
    layer { name: "y" type: "Convolution" bottom: "e" top: "y"
            convolution_param { num_output: 16 kernel_size: 1
                                weight_filler { type: "gaussian" std: 0.2 } } })";
}

std::string ScaleAndRelu(bool bias, bool relu) {
  std::string text = R"(
    layer { name: "scale" type: "Scale" bottom: "e" top: "e" scale_param { bias_term: )" +
                     std::string(bias ? "true " : "false ") + kScaleFillers + R"( } })";
  if (relu)
    text += R"(
    layer { name: "relu" type: "ReLU" bottom: "e" top: "e" })";
  return text;
}

void ExpectFolded(const std::string& text, bool folded) {
  for (const char* engine : {"", "REFERENCE"}) {
    auto net = Build(text, TRAIN, true, engine);
    ASSERT_TRUE(net);
    EXPECT_EQ(net->layer_by_name("bn")->absorbed(), folded && std::string(engine).empty())
        << "engine '" << engine << "'";
  }
}

TEST(Fusion, ExpandingConvolutionFoldsBatchNormScaleRelu) {
  const std::string text = NetAround(ExpandingLayers("c", ScaleAndRelu(true, true)));
  ExpectFolded(text, true);
  ExpectSameTrainingEverywhere(text, {"scale", "relu"});
}

TEST(Fusion, ExpandingConvolutionFoldsBatchNormAndScaleWithoutBias) {
  const std::string text = NetAround(ExpandingLayers("c", ScaleAndRelu(false, false)));
  ExpectFolded(text, true);
  ExpectSameTrainingEverywhere(text, {"scale"});
}

TEST(Fusion, ExpandingConvolutionFoldsBatchNormAlone) {
  const std::string text = NetAround(ExpandingLayers("c", ""));
  ExpectFolded(text, true);
  ExpectSameTrainingEverywhere(text, {});
}

// `text` (whose convolution "e" reads blob "far" and absorbs bn, scale and relu) folds and trains
// as the separate layers; so it does with a bottom that takes no gradient, and with frozen weights.
void ExpectFoldedTrainingAlsoFrozen(const std::string& text) {
  const std::vector<std::string> absorbed = {"bn", "scale", "relu"};
  const std::string reads = R"(bottom: "far" top: "e")";
  ExpectFolded(text, true);
  ExpectSameTraining(text, TRAIN, "", absorbed);
  std::string frozen_input = text;
  frozen_input.replace(frozen_input.find(reads), reads.size(),
                       R"(bottom: "far" top: "e" propagate_down: false)");
  ExpectSameTraining(frozen_input, TRAIN, "", absorbed);
  std::string frozen_weights = text;
  frozen_weights.replace(frozen_weights.find(reads), reads.size(),
                         R"(bottom: "far" top: "e" param { lr_mult: 0 })");
  ExpectSameTraining(frozen_weights, TRAIN, "", absorbed);
}

// The convolution's input far from zero (mean 50 against a spread of about 1), where sums of
// uncentred products would lose the variance's digits; then with a bottom that takes no gradient,
// and with frozen weights.
TEST(Fusion, FoldedBatchNormOnAnInputFarFromZero) {
  const std::string text = NetAround(R"(
    layer { name: "far" type: "Power" bottom: "c" top: "far" power_param { shift: 50 } })" +
                                     ExpandingLayers("far", ScaleAndRelu(true, true)));
  ExpectFoldedTrainingAlsoFrozen(text);
}

// More pixels and a batch that splits over threads, with a ReLU after a BatchNorm without Scale.
TEST(Fusion, FoldedBatchNormOnALargerBatch) {
  std::string text = NetAround(ExpandingLayers("c", R"(
    layer { name: "relu" type: "ReLU" bottom: "e" top: "e" })"));
  for (const char* from : {"dim: 4 dim: 6 dim: 5 dim: 5", "dim: 4 dim: 16 dim: 5 dim: 5"}) {
    std::string to = from;
    to.replace(0, 6, "dim: 9");
    to.replace(to.size() - 13, 13, "dim: 23 dim: 21");
    text.replace(text.find(from), std::string(from).size(), to);
  }
  ExpectFolded(text, true);
  ExpectSameTraining(text, TRAIN, "", {"bn", "relu"});
}

// Not folded: a convolution that does not widen enough (16 -> 4: 16^2 > 32 x 4), one with a bias,
// one with a 3x3 window; their BatchNorm runs (and absorbs) as before. (The biased one is not
// compared: a bias before batch normalisation has a gradient of zero up to rounding, which two
// summation orders round differently.)
TEST(Fusion, ConvolutionsOutsideTheFoldKeepTheirBatchNorm) {
  std::string narrow = ExpandingLayers("c", ScaleAndRelu(true, true));
  narrow.replace(narrow.find("num_output: 96"), 14, "num_output: 4");
  std::string biased = ExpandingLayers("c", ScaleAndRelu(true, true));
  biased.replace(biased.find("bias_term: false"), 16, "bias_term: true");
  std::string window = ExpandingLayers("c", ScaleAndRelu(true, true));
  window.replace(window.find("kernel_size: 1"), 14, "kernel_size: 3 pad: 1");
  ExpectFolded(NetAround(biased), false);
  for (const std::string& layers : {narrow, window}) {
    ExpectFolded(NetAround(layers), false);
    ExpectSameTraining(NetAround(layers), TRAIN, "", {"scale", "relu"});
  }
}

// A depthwise convolution (one filter per channel) takes BatchNorm, Scale and ReLU in TRAIN on the
// default engine (the depthwise op computes the normalisation in its passes); each way equals
// the separate layers. `window`: its kernel, stride and padding. The BatchNorm is BVLC's, as in
// ExpandingLayers.
std::string DepthwiseLayers(const std::string& input, int channels, const std::string& window,
                            const std::string& after_batch_norm) {
  const std::string n = std::to_string(channels);
  return R"(
    layer { name: "e" type: "Convolution" bottom: ")" +
         input + R"(" top: "e"
            convolution_param { num_output: )" +
         n + " group: " + n + " " + window + R"(
                                bias_term: false
                                weight_filler { type: "gaussian" std: 0.3 } } }
    layer { name: "bn" type: "BatchNorm" bottom: "e" top: "e"
            batch_norm_param { use_weight_bias: false } })" +
         after_batch_norm + R"(
    layer { name: "y" type: "Convolution" bottom: "e" top: "y"
            convolution_param { num_output: 16 kernel_size: 1
                                weight_filler { type: "gaussian" std: 0.2 } } })";
}

// The net's input resized: batch, channels and pixels of x, and the pixels of the target.
std::string Resized(std::string text, const std::string& x_dims, const std::string& t_pixels) {
  text.replace(text.find("dim: 4 dim: 6 dim: 5 dim: 5"), 27, x_dims);
  const std::string target = "dim: 4 dim: 16 dim: 5 dim: 5";
  std::string batch = x_dims.substr(0, x_dims.find(" dim: ", 5));
  text.replace(text.find(target), target.size(), batch + " dim: 16 " + t_pixels);
  return text;
}

// 56 x 56 pixels: the smallest output the depthwise kernel takes at stride 2
// (layers/convolution_layer.h), and the largest that runs backward plane by plane at stride 1.
std::string AtDepthwiseSize(const std::string& layers) {
  return Resized(NetAround(layers), "dim: 2 dim: 6 dim: 56 dim: 56", "dim: 56 dim: 56");
}

TEST(Fusion, DepthwiseConvolutionTakesBatchNormScaleRelu) {
  const std::string text =
      AtDepthwiseSize(DepthwiseLayers("c", 16, "kernel_size: 3 pad: 1", ScaleAndRelu(true, true)));
  ExpectFolded(text, true);
  ExpectSameTrainingEverywhere(text, {"scale", "relu"});
}

TEST(Fusion, DepthwiseConvolutionTakesBatchNormAlone) {
  const std::string text = AtDepthwiseSize(DepthwiseLayers("c", 16, "kernel_size: 3 pad: 1", ""));
  ExpectFolded(text, true);
  ExpectSameTrainingEverywhere(text, {});
}

// Stride 2 on odd sizes, where the last input row and column are read by no window; 5x5 windows
// with padding 2 and with none; 24 channels (a partly filled block); a batch and image that split
// unevenly over threads; blocks too large to take together.
TEST(Fusion, DepthwiseConvolutionStridesWindowsAndSizes) {
  struct Case {
    const char* window;
    const char* x_dims;  // x: batch, channels (6, into c), height, width
    const char* t_pixels;
    int channels;
    bool relu = true;
  };
  const Case cases[] = {
      {"kernel_size: 3 pad: 1 stride: 2", "dim: 2 dim: 6 dim: 113 dim: 115", "dim: 57 dim: 58", 16},
      {"kernel_size: 3 stride: 2", "dim: 2 dim: 6 dim: 116 dim: 114", "dim: 57 dim: 56", 16},
      {"kernel_size: 5 pad: 2", "dim: 3 dim: 6 dim: 57 dim: 61", "dim: 57 dim: 61", 16},
      {"kernel_size: 5", "dim: 2 dim: 6 dim: 62 dim: 60", "dim: 58 dim: 56", 16},
      {"kernel_size: 3 pad: 1", "dim: 3 dim: 6 dim: 59 dim: 56", "dim: 59 dim: 56", 24},
      {"kernel_size: 5 pad: 2 stride: 2", "dim: 3 dim: 6 dim: 115 dim: 117", "dim: 58 dim: 59", 24},
      // 16-channel blocks of 2.9 MB: forward takes two blocks, then one; backward one at a time.
      // No ReLU: among two million values some normalise to within rounding of zero, where the
      // two summation orders may disagree on the mask (not a difference in the kernel's maths).
      {"kernel_size: 3 pad: 1", "dim: 2 dim: 6 dim: 150 dim: 150", "dim: 150 dim: 150", 48, false},
      // Small images at stride 1 (whole planes in the cache, padded): 14 x 14 and 7 x 9, padding
      // wider than the window needs, a window larger than the image, one output pixel.
      {"kernel_size: 3 pad: 1", "dim: 3 dim: 6 dim: 14 dim: 14", "dim: 14 dim: 14", 24},
      {"kernel_size: 5 pad: 2", "dim: 5 dim: 6 dim: 7 dim: 9", "dim: 7 dim: 9", 16},
      {"kernel_size: 3 pad: 2", "dim: 3 dim: 6 dim: 5 dim: 4", "dim: 7 dim: 6", 16},
      {"kernel_size: 5 pad: 2", "dim: 4 dim: 6 dim: 3 dim: 2", "dim: 3 dim: 2", 16},
      {"kernel_size: 3", "dim: 9 dim: 6 dim: 3 dim: 3", "dim: 1 dim: 1", 16},
      {"kernel_size: 3 pad: 1", "dim: 2 dim: 6 dim: 1 dim: 1", "dim: 1 dim: 1", 8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.window) + ", x " + c.x_dims + ", " + std::to_string(c.channels));
    std::string around =
        NetAround(DepthwiseLayers("c", c.channels, c.window, ScaleAndRelu(true, c.relu)));
    around.replace(around.find("num_output: 16 kernel_size: 3 pad: 1"), 14,
                   "num_output: " + std::to_string(c.channels));
    const std::string text = Resized(around, c.x_dims, c.t_pixels);
    ExpectFolded(text, true);
    ExpectSameTraining(text, TRAIN, "",
                       c.relu ? std::vector<std::string>{"bn", "scale", "relu"}
                              : std::vector<std::string>{"bn", "scale"});
  }
}

// The depthwise convolution's input far from zero; then with a bottom that takes no gradient,
// and with frozen weights.
TEST(Fusion, DepthwiseBatchNormOnAnInputFarFromZero) {
  const std::string text = NetAround(
      R"(
    layer { name: "far" type: "Power" bottom: "c" top: "far" power_param { shift: 50 } })" +
      DepthwiseLayers("far", 16, "kernel_size: 3 pad: 1 stride: 2", ScaleAndRelu(true, true)));
  const std::string resized = Resized(text, "dim: 2 dim: 6 dim: 112 dim: 112", "dim: 56 dim: 56");
  ExpectFoldedTrainingAlsoFrozen(resized);
}

// Not taken: a strided output below 56 x 56 pixels (56 x 55), a 7x7 window, dilation, a channel
// multiplier (16 -> 32 in 16 groups); their BatchNorm runs (and absorbs) as before.
TEST(Fusion, DepthwiseConvolutionsOutsideTheKernelKeepTheirBatchNorm) {
  const std::string small =
      Resized(NetAround(DepthwiseLayers("c", 16, "kernel_size: 3 pad: 1 stride: 2",
                                        ScaleAndRelu(true, true))),
              "dim: 2 dim: 6 dim: 111 dim: 109", "dim: 56 dim: 55");
  ExpectFolded(small, false);
  ExpectSameTraining(small, TRAIN, "", {"scale", "relu"});
  for (const char* window : {"kernel_size: 7 pad: 3", "kernel_size: 3 pad: 2 dilation: 2"}) {
    const std::string text =
        AtDepthwiseSize(DepthwiseLayers("c", 16, window, ScaleAndRelu(true, true)));
    ExpectFolded(text, false);
    ExpectSameTraining(text, TRAIN, "", {"scale", "relu"});
  }
  std::string multiplier = DepthwiseLayers("c", 16, "kernel_size: 3 pad: 1", "");
  multiplier.replace(multiplier.find("num_output: 16"), 14, "num_output: 32");
  ExpectFolded(AtDepthwiseSize(multiplier), false);
}

}  // namespace
}  // namespace dtrain
