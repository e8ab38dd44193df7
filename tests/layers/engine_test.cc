// The engine choice (layers/engine.h, kernels/kernel_list.h): names, precedence, declines and the
// report verbose prints.
// These tests name each layer's engine themselves (LayerContext, Net), not through
// testing::MakeLayer and $DTRAIN_TEST_ENGINE, so EngineTest is not in ctest's reference rerun.
#include "layers/engine.h"

#include <gtest/gtest.h>

#include "kernels/engine.h"
#include "kernels/onednn/common.h"
#include "kernels/onednn/version.h"
#include "layers/registry.h"
#include "net/net.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::ParseLayerParameter;

TEST(EngineTest, ParsesNamesAndAliasesCaseInsensitively) {
  EXPECT_EQ(ParseEngine("").value(), Engine::kAny);
  EXPECT_EQ(ParseEngine("any").value(), Engine::kAny);
  EXPECT_EQ(ParseEngine("onednn").value(), Engine::kOnednn);
  EXPECT_EQ(ParseEngine("MKLDNN").value(), Engine::kOnednn);
  EXPECT_EQ(ParseEngine("Reference").value(), Engine::kReference);
  EXPECT_EQ(ParseEngine("CAFFE").value(), Engine::kReference);
  const auto bad = ParseEngine("FAST");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(
      bad.status().message(),
      "unknown engine 'FAST' (expected ONEDNN, MKLDNN, MKLDNN:CPU, MKL2017, REFERENCE, CAFFE or "
      "ANY)");
}

// Intel Caffe's grammar: NAME[:SUB[,;]SUB...], only MKLDNN with sub-engines, CPU the one here.
TEST(EngineTest, IntelEngineStringsWithSubEngines) {
  EXPECT_EQ(ParseEngine("MKLDNN:CPU").value(), Engine::kOnednn);
  EXPECT_EQ(ParseEngine(" mkldnn : CPU ; CPU,").value(), Engine::kOnednn);
  EXPECT_EQ(ParseEngine("MKL2017").value(), Engine::kOnednn);
  EXPECT_EQ(
      ParseEngine("MKLDNN:CPU,FPGA").status().message(),
      "engine 'MKLDNN:CPU,FPGA': sub-engine FPGA is an accelerator of Intel Caffe's that dtrain "
      "does not drive; MKLDNN:CPU is dtrain's oneDNN engine");
  EXPECT_EQ(ParseEngine("CAFFE:CPU").status().message(),
            "engine 'CAFFE:CPU': only MKLDNN takes sub-engines (Intel Caffe's rule), CAFFE none");
  EXPECT_EQ(ParseEngine("MKLDNN:").status().message(), "engine 'MKLDNN:': no sub-engine after ':'");
  EXPECT_EQ(ParseEngine(":CPU").status().message(),
            "engine ':CPU': only MKLDNN takes sub-engines (Intel Caffe's rule), and it names no "
            "engine");
  EXPECT_EQ(ParseEngine("CUDNN").status().message(),
            "engine 'CUDNN': dtrain has no GPU engine (ONEDNN, MKLDNN, MKLDNN:CPU, MKL2017, "
            "REFERENCE, CAFFE or ANY)");
}

// `dtrain version` names the library the process loaded, which must be the one compiled against
// (2.x or 3.x: their APIs differ, kernels/onednn/common.h).
TEST(EngineTest, OnednnVersionIsTheOneBuiltAgainst) {
  const std::string built =
      std::to_string(DNNL_VERSION_MAJOR) + "." + std::to_string(DNNL_VERSION_MINOR) + ".";
  EXPECT_EQ(OnednnVersion().rfind(built, 0), 0u) << OnednnVersion() << " vs headers " << built;
}

// Intel Caffe's layer factory: a per-type enum other than DEFAULT beats the layer's string.
TEST(EngineTest, FlagBeatsPerTypeEnumBeatsLayerBeatsNetDefault) {
  LayerParameter conv =
      ParseLayerParameter(R"(name: "c" type: "Convolution" convolution_param { engine: CAFFE })");
  EXPECT_EQ(ResolveEngineName(conv, "ONEDNN", ""), "CAFFE");
  EXPECT_EQ(ResolveEngineName(conv, "ONEDNN", "ONEDNN"), "ONEDNN");
  conv.set_engine("MKLDNN");
  EXPECT_EQ(ResolveEngineName(conv, "REFERENCE", ""), "CAFFE");
  conv.mutable_convolution_param()->clear_engine();
  EXPECT_EQ(ResolveEngineName(conv, "REFERENCE", ""), "MKLDNN");
  const LayerParameter bn = ParseLayerParameter(
      R"(name: "b" type: "BatchNorm" engine: "CAFFE" batch_norm_param { engine: MKLDNN })");
  EXPECT_EQ(ResolveEngineName(bn, "", ""), "MKLDNN");
  const LayerParameter cudnn =
      ParseLayerParameter(R"(name: "p" type: "Pooling" pooling_param { engine: CUDNN })");
  EXPECT_EQ(ResolveEngineName(cudnn, "REFERENCE", ""), "REFERENCE");
  const LayerParameter relu = ParseLayerParameter(R"(name: "r" type: "ReLU")");
  EXPECT_EQ(ResolveEngineName(relu, "REFERENCE", ""), "REFERENCE");
  EXPECT_EQ(ResolveEngineName(relu, "", ""), "");
}

std::unique_ptr<Layer> Build(const std::string& prototxt, const std::string& engine, Tensor* bottom,
                             Tensor* top, Status* status) {
  LayerContext context;
  context.engine = engine;
  auto layer = CreateLayer(ParseLayerParameter(prototxt), context);
  EXPECT_TRUE(layer.ok());
  *status = (*layer)->Setup({bottom}, {top});
  return std::move(layer).value();
}

TEST(EngineTest, DefaultChoosesOnednnAndReportsItsImplementation) {
  Tensor x({2, 3, 8, 8}), y;
  Status status;
  auto layer = Build(R"(name: "c" type: "Convolution" convolution_param { num_output: 4
                         kernel_size: 3 })",
                     "", &x, &y, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(layer->engine_report().rfind("onednn ", 0), 0u) << layer->engine_report();
}

TEST(EngineTest, ReferenceOnRequest) {
  Tensor x({2, 3, 8, 8}), y;
  Status status;
  auto layer = Build(R"(name: "r" type: "ReLU")", "REFERENCE", &x, &y, &status);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(layer->engine_report(), "reference (engine REFERENCE requested)");
}

// Caffe divides the last, overhanging window of padded average pooling by a size oneDNN cannot
// express: 6x6, kernel 3, stride 2, pad 1 gives 4 outputs whose last window overhangs by 1.
const char kOverhangingAvePool[] =
    R"(name: "p" type: "Pooling" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 })";

TEST(EngineTest, DeclinedConfigurationFallsBackToReferenceWithTheReason) {
  Tensor x({1, 2, 6, 6}), y;
  Status status;
  auto layer =
      Build(R"(name: "r" type: "ReLU" relu_param { negative_slope: -0.5 })", "", &x, &y, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(layer->engine_report(),
            "reference (onednn declined: negative_slope < 0: oneDNN's backward from dst needs a "
            "slope >= 0)");
}

// oneDNN pooling runs by default only where it was measured faster: with AVX-512 (blocks of 16
// channels); elsewhere dtrain's loops on the blocked layout take it, and oneDNN's only when asked
// for.
TEST(EngineTest, PoolingRunsOnOnednnWithAvx512OrWhenAskedTo) {
  Tensor x({1, 8, 6, 6}), y;
  Status status;
  const char max_pool[] =
      R"(name: "p" type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 })";
  auto by_default = Build(max_pool, "", &x, &y, &status);
  ASSERT_TRUE(status.ok());
  if (onednn::BlocksOf16Channels()) {
    EXPECT_EQ(by_default->engine_report().rfind("onednn ", 0), 0u) << by_default->engine_report();
    EXPECT_EQ(by_default->engine_report().find("blocked"), std::string::npos);
  } else {
    EXPECT_EQ(by_default->engine_report(), "onednn blocked nChw8c");
  }
  auto forced = Build(max_pool, "ONEDNN", &x, &y, &status);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(forced->engine_report().rfind("onednn ", 0), 0u) << forced->engine_report();
  EXPECT_EQ(forced->engine_report().find("blocked"), std::string::npos);
}

// Forced, every kernel of the engine declines (oneDNN's: the overhanging AVE window; dtrain's
// loops: too few channels): the error names the layer and the engine's last decline.
TEST(EngineTest, ForcedOnednnThatDeclinesIsAnErrorNamingTheLayer) {
  Tensor x({1, 2, 6, 6}), y;
  Status status;
  Build(kOverhangingAvePool, "ONEDNN", &x, &y, &status);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "layer 'p' (Pooling): engine ONEDNN requested, but dtrain's blocked loops declines: "
            "fewer than 8 channels");
}

TEST(EngineTest, UnknownEngineIsAnErrorNamingTheLayer) {
  Tensor x({2, 3}), y;
  Status status;
  Build(R"(name: "r" type: "ReLU")", "GPU", &x, &y, &status);
  EXPECT_EQ(status.message(),
            "layer 'r' (ReLU): unknown engine 'GPU' (expected ONEDNN, MKLDNN, MKLDNN:CPU, "
            "MKL2017, REFERENCE, CAFFE or ANY)");
}

TEST(EngineTest, NetDefaultAppliesToLayersWithoutTheirOwnAndTheFlagToAll) {
  NetParameter param;
  param.set_engine("REFERENCE");
  param.add_input("data");
  BlobShape* shape = param.add_input_shape();
  for (int d : {2, 3, 5, 5}) shape->add_dim(d);
  LayerParameter* a = param.add_layer();
  *a = ParseLayerParameter(R"(name: "a" type: "ReLU" bottom: "data" top: "a")");
  LayerParameter* b = param.add_layer();
  *b = ParseLayerParameter(R"(name: "b" type: "ReLU" bottom: "a" top: "b" engine: "ONEDNN")");
  NetState state;
  auto net = Net::Create(param, state, 1);
  ASSERT_TRUE(net.ok()) << net.status().message();
  EXPECT_EQ((*net)->layer_by_name("a")->engine_report(), "reference (engine REFERENCE requested)");
  EXPECT_EQ((*net)->layer_by_name("b")->engine_report().rfind("onednn", 0), 0u);
  auto forced = Net::Create(param, state, 1, "REFERENCE");
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ((*forced)->layer_by_name("b")->engine_report(),
            "reference (engine REFERENCE requested)");
}

}  // namespace
}  // namespace dtrain
