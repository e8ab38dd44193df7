// Hostile input: Intel Caffe's multinode, int8, algorithm and engine settings. What dtrain cannot
// do as Intel Caffe did (model parallelism, an algorithm or sub-engine Intel never had) is refused
// by name in train, check and time alike, all of a file's at once; what it computes the same way
// Intel's own fallback does (fp32 for int8 scales, exact gradient exchange, direct convolution)
// runs and says so once per net.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hostile/hostile.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

// DummyData 2x3x6x6 through a 3x3 convolution and an InnerProduct; `conv`, `fc` and `head` are
// spliced into the convolution's parameters, the InnerProduct layer and the net's top level.
std::string ConvNet(const std::string& conv, const std::string& fc, const std::string& head) {
  return "name: 'intel'\n" + head +
         "\nlayer { name: 'data' type: 'DummyData' top: 'x' top: 'label' dummy_data_param {\n"
         "  shape { dim: 2 dim: 3 dim: 6 dim: 6 } shape { dim: 2 }\n"
         "  data_filler { type: 'gaussian' std: 1 } data_filler { type: 'constant' value: 1 } } }\n"
         "layer { name: 'conv' type: 'Convolution' bottom: 'x' top: 'c'\n"
         "  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: 'xavier' } " +
         conv +
         " } }\n"
         "layer { name: 'fc' type: 'InnerProduct' bottom: 'c' top: 'y'\n"
         "  inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } " +
         fc +
         " }\n"
         "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'y' bottom: 'label' top: 'loss' }\n";
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(IntelSettings, ModelParallelismAndUnknownAlgorithmsAreRefusedByNameAllAtOnce) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                ConvNet("conv_algorithm: 'fft'", "multinode { model_parts: 2 }",
                        "multinode { model_parallel { layer_from: 'fc' num_nodes: 4 } }"));
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: '" + dir.Path("net.prototxt") +
                    "' base_lr: 0.1 lr_policy: 'fixed' max_iter: 2 snapshot_prefix: '" +
                    dir.Path("snap") + "'\n");
  const std::string why[] = {
      "3 Intel Caffe setting(s) dtrain refuses:",
      "multinode.model_parallel from 'fc': Intel Caffe's model parallelism; dtrain trains "
      "data-parallel only (every rank holds the whole net), so only num_nodes 0 and model_parts 1 "
      "are accepted",
      "layer 'conv': convolution_param.conv_algorithm \"fft\": Intel Caffe's values are direct, "
      "winograd and auto",
      "layer 'fc': multinode { num_nodes: 0 model_parts: 2 }: Intel Caffe's model parallelism",
  };
  for (const std::string& command : {"check --model=" + dir.Path("net.prototxt"),
                                     "check --solver=" + dir.Path("solver.prototxt"),
                                     "train --solver=" + dir.Path("solver.prototxt"),
                                     "time --iterations=1 --model=" + dir.Path("net.prototxt")}) {
    const testing::CommandResult result = RunDtrainWithin(60, command);
    for (const std::string& text : why) EXPECT_REFUSED_WITH(result, text);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.Path("snap_iter_2.caffemodel")));
}

TEST(IntelSettings, DataParallelValuesOfTheMultinodeFieldsAreAccepted) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                ConvNet("", "multinode { num_nodes: 0 model_parts: 1 } mn_activation_param { }",
                        "multinode { model_parallel { layer_from: 'conv' model_parts: 1 } }"));
  const testing::CommandResult run =
      RunDtrainWithin(60, "time --iterations=1 --model=" + dir.Path("net.prototxt"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

// int8 scales, gradient compression and Winograd: Intel Caffe itself runs these files in fp32,
// with exact gradients and the direct algorithm where its int8 engine, compression library or
// Winograd kernel is absent; dtrain does the same and says so once per net.
TEST(IntelSettings, SettingsDtrainComputesAsIntelsFallbackRunWithOneLineEach) {
  TempDir dir;
  WriteTextFile(
      dir.Path("net.prototxt"),
      ConvNet("conv_algorithm: 'winograd'",
              "quantization_param { bw_layer_in: 8 bw_params: 8 scale_in: 12.5 scale_params: 40 }"
              " mn_grad_compress_param { param_grad_compress_enable: true }",
              "multinode { compress_layer_type_list { layer_type: 'Convolution' } }"));
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: '" + dir.Path("net.prototxt") +
                    "' base_lr: 0.1 lr_policy: 'fixed' max_iter: 2 display: 1 "
                    "snapshot_after_train: false\n");
  const testing::CommandResult train =
      RunDtrainWithin(60, "train --solver=" + dir.Path("solver.prototxt"));
  ASSERT_EQ(train.exit_code, 0) << train.output;
  const std::string lines[] = {
      "net intel (TRAIN): 1 layer(s) carry Intel Caffe's int8 quantization_param: dtrain computes "
      "them in fp32, the int8 scales are not applied",
      "net intel (TRAIN): gradient compression of Convolution, InnerProduct (Intel Caffe's "
      "multinode setting) is not applied: gradients are exchanged exact, as Intel Caffe exchanges "
      "them where its compression library is absent",
      "net intel (TRAIN): conv_algorithm \"winograd\": oneDNN's direct convolution computes these "
      "layers (Intel Caffe's own fallback where its choice is not available)",
  };
  for (const std::string& line : lines) EXPECT_EQ(Count(train.output, line), 1u) << train.output;
  const testing::CommandResult test =
      RunDtrainWithin(60, "test --iterations=1 --model=" + dir.Path("net.prototxt"));
  ASSERT_EQ(test.exit_code, 0) << test.output;
  EXPECT_EQ(Count(test.output, "net intel (TEST): 1 layer(s) carry Intel Caffe's int8"), 1u)
      << test.output;
  // No gradients are exchanged in a test.
  EXPECT_EQ(Count(test.output, "gradient compression"), 0u) << test.output;
}

TEST(IntelSettings, GaborOnAShapeIntelHasNoFiltersForIsRefused) {
  TempDir dir;
  // Four 3x3 filters: Intel's table has none (it stopped with "No predefined gabor filters").
  std::string net = ConvNet("", "", "");
  net.replace(net.find("type: 'xavier'"), 14, "type: 'gabor'");
  WriteTextFile(dir.Path("net.prototxt"), net);
  const testing::CommandResult run =
      RunDtrainWithin(60, "time --iterations=1 --model=" + dir.Path("net.prototxt"));
  EXPECT_REFUSED_WITH(run, "conv");
  EXPECT_REFUSED_WITH(run,
                      "filler \"gabor\" (Intel Caffe's) has filters for 32 x 3 x 5 x 5, "
                      "64 x 3 x 7 x 7, 64 x 3 x 3 x 3 and 96 x 3 x 11 x 11 weights only, not 4 3 3 "
                      "3 (108)");
}

TEST(IntelSettings, EngineStringsAreIntelsAndTheSolverEngineIsTheNetsDefault) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), ConvNet("", "engine: 'MKLDNN:CPU'", ""));
  const std::string solver = "net: '" + dir.Path("net.prototxt") +
                             "' base_lr: 0.1 lr_policy: 'fixed' max_iter: 1 "
                             "snapshot_after_train: false ";
  // Intel's rule: the solver's engine reaches the layers that name none; fc names MKLDNN:CPU.
  WriteTextFile(dir.Path("solver.prototxt"), solver + "engine: 'CAFFE'\n");
  const testing::CommandResult run =
      RunDtrainWithin(60, "train --verbose --solver=" + dir.Path("solver.prototxt"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("engine: intel / conv (Convolution): reference"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("engine: intel / fc (InnerProduct): onednn"), std::string::npos)
      << run.output;
  for (const auto& [engine, error] :
       {std::pair<std::string, std::string>{
            "MKLDNN:CPU;DLA",
            "engine: engine 'MKLDNN:CPU;DLA': sub-engine DLA is an accelerator of Intel "
            "Caffe's that dtrain does not drive"},
        {"CUDNN", "engine: engine 'CUDNN': dtrain has no GPU engine"},
        {"MKL2017:CPU", "engine: engine 'MKL2017:CPU': only MKLDNN takes sub-engines"}}) {
    WriteTextFile(dir.Path("bad.prototxt"), solver + "engine: '" + engine + "'\n");
    for (const std::string command : {"train --solver=", "check --solver="}) {
      EXPECT_REFUSED_WITH(RunDtrainWithin(60, command + dir.Path("bad.prototxt")), error);
    }
  }
}

}  // namespace
}  // namespace dtrain
