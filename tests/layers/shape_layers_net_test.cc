// Caffe's Crop, Reduction, Tile, ArgMax, Embed, Parameter, Filter, MVN and BatchReindex in whole
// nets: an FCN-style net (Convolution, Deconvolution, Crop back to the input's size) trains; a
// Crop's reference blob takes no gradient from it; the layers whose bottoms take no gradient are
// refused when the net is built if one would need it; the other new types train together.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/net_training.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

NetParameter Parse(const std::string& text) {
  NetParameter p;
  Status s = ParseTextProto(text, "net", &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

StatusOr<std::unique_ptr<Net>> Build(const std::string& text) {
  NetState state;
  state.set_phase(TRAIN);
  return Net::Create(Parse(text), state, 1);
}

// An FCN in miniature: 8 x 8 input, a stride-2 convolution (3 x 3), a stride-2 deconvolution
// back up (to 10 x 10), cropped at offset 1 to the input's 8 x 8, trained to reproduce the input.
const char* kFcn = R"(
name: "fcn"
layer { name: "data" type: "DummyData" top: "x"
        dummy_data_param { refill: false shape { dim: 2 dim: 1 dim: 8 dim: 8 }
                           data_filler { type: "gaussian" std: 1 } } }
layer { name: "conv" type: "Convolution" bottom: "x" top: "h"
        convolution_param { num_output: 4 kernel_size: 3 stride: 2
                            weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "relu" type: "ReLU" bottom: "h" top: "h" }
layer { name: "up" type: "Deconvolution" bottom: "h" top: "up"
        convolution_param { num_output: 1 kernel_size: 6 stride: 2
                            weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "crop" type: "Crop" bottom: "up" bottom: "x" top: "score"
        crop_param { axis: 2 offset: 1 } }
layer { name: "loss" type: "EuclideanLoss" bottom: "score" bottom: "x" top: "loss" }
)";

TEST(ShapeLayersNetTest, FcnWithCropTrains) {
  auto net = Build(kFcn);
  ASSERT_TRUE(net.ok()) << net.status().message();
  EXPECT_EQ((*net)->blob_by_name("h")->shape(), (std::vector<int>{2, 4, 3, 3}));
  EXPECT_EQ((*net)->blob_by_name("up")->shape(), (std::vector<int>{2, 1, 10, 10}));
  EXPECT_EQ((*net)->blob_by_name("score")->shape(), (std::vector<int>{2, 1, 8, 8}));
  auto [first, last] = testing::TrainWithPlainSgd(**net, 40, 0.01f);
  EXPECT_LT(last, 0.8f * first);
}

TEST(ShapeLayersNetTest, CheckCommandAcceptsTheFcn) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("fcn.prototxt"), kFcn);
  auto r = testing::RunDtrain("check --model=" + dir.Path("fcn.prototxt"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The crop's reference is "ref" (a convolution that also feeds the loss), or the data: ref's
// gradients must be the same, since a crop does not depend on its reference's values.
const char* kCropReference = R"(
layer { name: "data" type: "DummyData" top: "x" top: "t"
        dummy_data_param { refill: false shape { dim: 2 dim: 1 dim: 6 dim: 6 }
                           shape { dim: 2 dim: 1 dim: 6 dim: 6 }
                           data_filler { type: "gaussian" std: 1 }
                           data_filler { type: "gaussian" std: 1 } } }
layer { name: "ref" type: "Convolution" bottom: "x" top: "ref"
        convolution_param { num_output: 1 kernel_size: 3 pad: 1
                            weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "wide" type: "Convolution" bottom: "x" top: "wide"
        convolution_param { num_output: 1 kernel_size: 1 pad: 1
                            weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "crop" type: "Crop" bottom: "wide" bottom: "%s" top: "c"
        crop_param { offset: 1 } }
layer { name: "sum" type: "Eltwise" bottom: "c" bottom: "ref" top: "s" }
layer { name: "loss" type: "EuclideanLoss" bottom: "s" bottom: "t" top: "loss" }
)";

std::vector<float> RefWeightDiff(const std::string& reference) {
  std::string text = kCropReference;
  text.replace(text.find("%s"), 2, reference);
  auto net = Build(text);
  EXPECT_TRUE(net.ok()) << net.status().message();
  if (!net.ok()) return {};
  EXPECT_TRUE((*net)->Forward().ok());
  (*net)->ClearParamDiffs();
  (*net)->Backward();
  const Tensor& w = *(*net)->layer_by_name("ref")->blobs()[0];
  return std::vector<float>(w.diff(), w.diff() + w.count());
}

TEST(ShapeLayersNetTest, CropReferenceTakesNoGradient) {
  const std::vector<float> through_data = RefWeightDiff("x");
  const std::vector<float> through_ref = RefWeightDiff("ref");
  ASSERT_EQ(through_data.size(), 9u);
  EXPECT_EQ(through_ref, through_data);
}

// Every other new type once: Parameter (a learned bias) tiled and added, MVN, Embed of label
// indices, Filter and BatchReindex of the batch, Reduction to the loss; ArgMax on the data.
const char* kOthers = R"(
layer { name: "data" type: "DummyData" top: "x" top: "word"
        dummy_data_param { refill: false shape { dim: 4 dim: 3 } shape { dim: 4 }
                           data_filler { type: "gaussian" std: 1 }
                           data_filler { type: "constant" value: 2 } } }
layer { name: "sel" type: "DummyData" top: "keep" top: "order"
        dummy_data_param { refill: false shape { dim: 4 } shape { dim: 3 }
                           data_filler { type: "constant" value: 1 }
                           data_filler { type: "constant" value: 0 } } }
layer { name: "am" type: "ArgMax" bottom: "x" top: "best" }
layer { name: "bias" type: "Parameter" top: "b" parameter_param { shape { dim: 1 dim: 3 } } }
layer { name: "tile" type: "Tile" bottom: "b" top: "bt" tile_param { axis: 0 tiles: 4 } }
layer { name: "emb" type: "Embed" bottom: "word" top: "e"
        embed_param { num_output: 3 input_dim: 5 weight_filler { type: "gaussian" std: 1 } } }
layer { name: "add" type: "Eltwise" bottom: "x" bottom: "bt" bottom: "e" top: "s" }
layer { name: "mvn" type: "MVN" bottom: "s" top: "n" mvn_param { across_channels: true } }
layer { name: "flat" type: "Flatten" bottom: "n" top: "nf" }
layer { name: "ip" type: "InnerProduct" bottom: "nf" top: "h"
        inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "filter" type: "Filter" bottom: "h" bottom: "keep" top: "hf" }
layer { name: "reindex" type: "BatchReindex" bottom: "hf" bottom: "order" top: "hr" }
layer { name: "red" type: "Reduction" bottom: "hr" top: "loss"
        reduction_param { operation: SUMSQ coeff: 0.1 } loss_weight: 1 }
)";

TEST(ShapeLayersNetTest, OtherNewTypesTrainTogether) {
  auto net = Build(kOthers);
  ASSERT_TRUE(net.ok()) << net.status().message();
  EXPECT_EQ((*net)->blob_by_name("best")->shape(), (std::vector<int>{4, 1, 1}));
  EXPECT_EQ((*net)->blob_by_name("n")->shape(), (std::vector<int>{4, 3, 1, 1}));
  EXPECT_EQ((*net)->blob_by_name("hr")->shape(), (std::vector<int>{3, 3}));
  auto [first, last] = testing::TrainWithPlainSgd(**net, 20, 0.1f);
  EXPECT_LT(last, first);
  // The learned bias moved: Parameter's blob got gradients through Tile.
  const Tensor& b = *(*net)->layer_by_name("bias")->blobs()[0];
  float moved = 0.f;
  for (int i = 0; i < 3; ++i) moved += std::fabs(b.data()[i]);
  EXPECT_GT(moved, 0.f);
}

// A net in which `x` (2 x 1) needs a gradient: it comes from an InnerProduct. (Each case uses x
// once, so that no split renames it.)
const char* kNeedsGradient = R"(
layer { name: "data" type: "DummyData" top: "d" top: "i"
        dummy_data_param { shape { dim: 2 dim: 3 } shape { dim: 2 } } }
layer { name: "ip" type: "InnerProduct" bottom: "d" top: "x" inner_product_param { num_output: 1 } }
%s
)";

Status BuildStatus(const std::string& layer) {
  std::string text = kNeedsGradient;
  text.replace(text.find("%s"), 2, layer);
  auto net = Build(text);
  return net.ok() ? Status::Ok() : net.status();
}

TEST(ShapeLayersNetTest, BottomsWithoutGradientThatNeedOneAreErrors) {
  Status embed = BuildStatus(
      R"(layer { name: "emb" type: "Embed" bottom: "x" top: "e" embed_param { num_output: 2 input_dim: 4 } }
         layer { name: "loss" type: "Reduction" bottom: "e" top: "loss" loss_weight: 1 })");
  EXPECT_EQ(embed.message(),
            "layer 'emb' (Embed) gives no gradient to its bottom 0 (as in Caffe), but bottom 'x' "
            "needs one; set propagate_down: false for it");
  Status filter = BuildStatus(
      R"(layer { name: "f" type: "Filter" bottom: "d" bottom: "x" top: "df" }
         layer { name: "loss" type: "Reduction" bottom: "df" top: "loss" loss_weight: 1 })");
  EXPECT_NE(filter.message().find("layer 'f' (Filter) gives no gradient to its bottom 1 (as in "
                                  "Caffe), but bottom 'x' needs one"),
            std::string::npos)
      << filter.message();
  Status reindex = BuildStatus(
      R"(layer { name: "x1" type: "Reshape" bottom: "x" top: "x1" reshape_param { shape { dim: 2 } } }
         layer { name: "ri" type: "BatchReindex" bottom: "d" bottom: "x1" top: "dr" }
         layer { name: "loss" type: "Reduction" bottom: "dr" top: "loss" loss_weight: 1 })");
  EXPECT_NE(
      reindex.message().find("layer 'ri' (BatchReindex) gives no gradient to its bottom 1 (as in "
                             "Caffe), but bottom 'x1' needs one"),
      std::string::npos)
      << reindex.message();
  Status argmax = BuildStatus(
      R"(layer { name: "am" type: "ArgMax" bottom: "x" top: "a" }
         layer { name: "loss" type: "Reduction" bottom: "a" top: "loss" loss_weight: 1 })");
  EXPECT_NE(argmax.message().find("layer 'am' (ArgMax) has no gradient (as in Caffe), but its "
                                  "bottom 'x' needs one"),
            std::string::npos)
      << argmax.message();
  // propagate_down: false cuts it, as the message says.
  Status cut = BuildStatus(
      R"(layer { name: "x1" type: "Reshape" bottom: "x" top: "x1" reshape_param { shape { dim: 2 } } }
         layer { name: "ri" type: "BatchReindex" bottom: "d" bottom: "x1" top: "dr"
                 propagate_down: true propagate_down: false }
         layer { name: "loss" type: "Reduction" bottom: "dr" top: "loss" loss_weight: 1 })");
  EXPECT_TRUE(cut.ok()) << cut.message();
}

}  // namespace
}  // namespace dtrain
