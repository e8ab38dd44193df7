// A file written for a Caffe fork is refused once, with everything it lacks named: every unknown
// field (file:line:column, the message it is in, a hint where the fork is known), then every
// unknown layer type (the layer's name, a hint), through `dtrain check` and every command that
// reads a net.
#include <gtest/gtest.h>

#include <string>

#include "core/proto_io.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

TEST(OnePassCheck, EveryUnknownFieldIsNamedWithItsLineAndHint) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("ssd.prototxt"),
                "input: 'data' input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"        // 1
                "layer { name: 'zoom' type: 'Interp' bottom: 'data' top: 'p'\n"      // 2
                "        interp_param { zoom_factor: 2 } }\n"                        // 3
                "layer { name: 'pool' type: 'Pooling' bottom: 'data' top: 'q'\n"     // 4
                "        pooling_param { kernel_size: 2 stride: 2 chicken: 3 } }\n"  // 5
                "layer { name: 'in' type: 'Upsample' bottom: 'q' top: 'r'\n"         // 6
                "        upsample_param { scale: 2 } }\n");                          // 7
  const std::string file = dir.Path("ssd.prototxt");
  for (const std::string command : {"check --model=", "time --iterations=1 --model="}) {
    auto r = RunDtrain(command + file);
    EXPECT_FAILS_WITH(r, file +
                             ":3:9: unknown field \"interp_param\" in LayerParameter "
                             "(interp_param belongs to DeepLab's and PSPNet's Interp layer, "
                             "which dtrain does not have)");
    EXPECT_FAILS_WITH(r, file + ":5:50: unknown field \"chicken\" in PoolingParameter\n");
    EXPECT_FAILS_WITH(r, file +
                             ":7:9: unknown field \"upsample_param\" in LayerParameter "
                             "(upsample_param belongs to SegNet's Upsample layer");
  }
}

TEST(OnePassCheck, ParseTextProtoListsEveryUnknownFieldAndStillFails) {
  NetParameter net;
  Status s = ParseTextProto("name: 'x' colour: 1\nlayer { name: 'a' flavour: 2 }\n", "t", &net);
  EXPECT_EQ(s.message(),
            "t:1:11: unknown field \"colour\" in NetParameter\n"
            "t:2:19: unknown field \"flavour\" in LayerParameter");
  // A syntax error still stops the parse; the unknown fields met before it are listed after it.
  s = ParseTextProto("colour: 1\nname: {", "t", &net);
  EXPECT_NE(s.message().find("t:2:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("unknown field \"colour\""), std::string::npos) << s.message();
}

// protobuf's parser stops at an enum value its schema lacks; each is named and the parse goes on,
// so the fields after it are named too (R-FCN's PRE_FIXED once hid pre_fixed_normalizer).
TEST(OnePassCheck, UnknownEnumValuesAreNamedAndHideNothingAfterThem) {
  NetParameter net;
  Status s = ParseTextProto(
      "layer { name: 'loss' type: 'SoftmaxWithLoss'\n"                        // 1
      "  loss_param { normalization: HALF label_smoothing: 4 } }\n"           // 2
      "layer { name: 'p' type: 'Pooling' pooling_param { pool: MEDIAN } }\n"  // 3
      "layer { name: 'q' type: 'Pooling' pooling_param { pool: MAX kernel_size: 2 } }\n",
      "t", &net);
  EXPECT_EQ(s.message(),
            "t:2:31: Unknown enumeration value of \"HALF\" for field \"normalization\".\n"
            "t:3:57: Unknown enumeration value of \"MEDIAN\" for field \"pool\".\n"
            "t:2:36: unknown field \"label_smoothing\" in LossParameter");
  // A number the enum lacks is named the same way.
  s = ParseTextProto("layer { pooling_param { pool: 7 } colour: 1 }", "t", &net);
  EXPECT_EQ(s.message(),
            "t:1:31: Unknown enumeration value of \"7\" for field \"pool\".\n"
            "t:1:35: unknown field \"colour\" in LayerParameter");
}

TEST(OnePassCheck, EveryUnknownLayerTypeIsNamedWithItsHint) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("fork.prototxt"),
                "input: 'data' input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"
                "layer { name: 'out' type: 'Interp' bottom: 'data' top: 'a' }\n"
                "layer { name: 'relu' type: 'ReLU' bottom: 'data' top: 'b' }\n"
                "layer { name: 'rpn' type: 'Python' bottom: 'b' top: 'c' "
                "        include { phase: TEST } }\n"
                "layer { name: 'warp' type: 'Warp' bottom: 'b' top: 'd' }\n");
  // A dtrain with Python runs the Python layer (check imports its module later); one without
  // names it with the others.
  const std::string kUnknownTypes =
#ifdef DTRAIN_HAS_PYTHON_LAYERS
      "2 layer(s) of a type dtrain does not have:\n"
      "  layer 'out': unknown layer type \"Interp\" (Interp is DeepLab's and PSPNet's layer)\n"
#else
      "3 layer(s) of a type dtrain does not have:\n"
      "  layer 'out': unknown layer type \"Interp\" (Interp is DeepLab's and PSPNet's layer)\n"
      "  layer 'rpn': unknown layer type \"Python\" (Python layers run the "
      "model's own Python code; this dtrain was built without Python (-DDTRAIN_PYTHON=OFF))\n"
#endif
      "  layer 'warp': unknown layer type \"Warp\"\n"
      "supported types: ";
  auto r = RunDtrain("check --model=" + dir.Path("fork.prototxt"));
  EXPECT_FAILS_WITH(r, dir.Path("fork.prototxt") + ": " + kUnknownTypes);
  // Commands that build the net (here the TRAIN phase) name the TEST phase's 'rpn' too.
  r = RunDtrain("time --iterations=1 --model=" + dir.Path("fork.prototxt"));
  EXPECT_FAILS_WITH(r, kUnknownTypes);
}

// A file with unknown fields and unknown layer types: `dtrain check` names both in one run (the
// types were not listed once a field was unknown), and `check --solver` with unknown fields of
// its own still reads its nets and names what they lack.
TEST(OnePassCheck, UnknownFieldsAndUnknownTypesAreNamedInOneRun) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("intel.prototxt"),
                "input: 'data' input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"
                "layer { name: 'c' type: 'Convolution' bottom: 'data' top: 'c'\n"
                "        convolution_param { num_output: 2 kernel_size: 3 coeff: 1.5 } }\n"
                "layer { name: 'zoom' type: 'Interp' bottom: 'c' top: 'r' }\n");
  const std::string net = dir.Path("intel.prototxt");
  const std::string field = net + ":3:58: unknown field \"coeff\" in ConvolutionParameter";
  const std::string types = net +
                            ": 1 layer(s) of a type dtrain does not have:\n"
                            "  layer 'zoom': unknown layer type \"Interp\"";
  auto r = RunDtrain("check --model=" + net);
  EXPECT_FAILS_WITH(r, field + "\n" + types);
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: '" + net + "'\nbase_lr: 0.1 lr_policy: 'fixed'\nmulti_phase: 1\n");
  r = RunDtrain("check --solver=" + dir.Path("solver.prototxt"));
  EXPECT_FAILS_WITH(r, dir.Path("solver.prototxt") +
                           ":3:1: unknown field \"multi_phase\" in SolverParameter\n" + field +
                           "\n" + types);
}

// check --solver builds the train net with the solver's train_state, as train does: a layer of a
// stage the solver's train_state leaves out is not checked.
TEST(OnePassCheck, TheSolversTrainStateSelectsTheTrainNetsLayers) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                "layer { name: 'data' type: 'DummyData' top: 'data' top: 'label'\n"
                "  dummy_data_param { shape { dim: 2 dim: 4 } shape { dim: 2 } } }\n"
                "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip'\n"
                "  inner_product_param { num_output: 3 } }\n"
                "layer { name: 'bad' type: 'InnerProduct' bottom: 'missing' top: 'x'\n"
                "  inner_product_param { num_output: 3 } include { stage: 'other' } }\n"
                "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' }\n");
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: '" + dir.Path("net.prototxt") +
                    "' base_lr: 0.1 lr_policy: 'fixed' train_state { stage: 'mine' }\n");
  auto r = RunDtrain("check --solver=" + dir.Path("solver.prototxt"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  WriteTextFile(dir.Path("other.prototxt"),
                "net: '" + dir.Path("net.prototxt") +
                    "' base_lr: 0.1 lr_policy: 'fixed' train_state { stage: 'other' }\n");
  r = RunDtrain("check --solver=" + dir.Path("other.prototxt"));
  EXPECT_FAILS_WITH(r,
                    "layer 'bad' (InnerProduct): bottom 'missing' is not produced by any "
                    "earlier layer");
}

// A file for one phase alone (Intel's *_acc.prototxt inference files: their Data layers are
// TEST-only) passes check --model, its other phase named as no net of its own; a bottom that no
// phase produces, or a file whose two phases each need the other's inputs, still fails.
TEST(OnePassCheck, AFileForOnePhaseAlonePassesNamingTheOtherAsNoNet) {
  testing::TempDir dir;
  const std::string ip =
      "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip'\n"
      "  inner_product_param { num_output: 2 } }\n";
  WriteTextFile(dir.Path("test_only.prototxt"),
                "layer { name: 'data' type: 'Input' top: 'data' include { phase: TEST }\n"
                "  input_param { shape { dim: 1 dim: 4 } } }\n" +
                    ip);
  const std::string net = dir.Path("test_only.prototxt");
  auto r = RunDtrain("check --model=" + net);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(net + ", phase TRAIN: not a net of its own: its input(s) 'data' come "
                                "only from layers of another phase (a file for the other "
                                "phase); skipped"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(net + ", phase TEST: 2 layers"), std::string::npos) << r.output;
  // Each phase needs what only the other makes: no net at all.
  WriteTextFile(dir.Path("crossed.prototxt"),
                "layer { name: 'a' type: 'Input' top: 'data' include { phase: TEST }\n"
                "  input_param { shape { dim: 1 dim: 4 } } }\n"
                "layer { name: 'b' type: 'Input' top: 'other' include { phase: TRAIN }\n"
                "  input_param { shape { dim: 1 dim: 4 } } }\n"
                "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip'\n"
                "  inner_product_param { num_output: 2 } include { phase: TRAIN } }\n"
                "layer { name: 'ip2' type: 'InnerProduct' bottom: 'other' top: 'ip2'\n"
                "  inner_product_param { num_output: 2 } include { phase: TEST } }\n");
  EXPECT_FAILS_WITH(RunDtrain("check --model=" + dir.Path("crossed.prototxt")),
                    "neither phase is a net of its own: each takes inputs that only layers of "
                    "the other phase produce");
  // A solver's train net must build in its own phase.
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: '" + net + "' base_lr: 0.1 lr_policy: 'fixed'\n");
  EXPECT_FAILS_WITH(
      RunDtrain("check --solver=" + dir.Path("solver.prototxt")),
      "layer 'ip' (InnerProduct): bottom 'data' is not produced by any earlier layer");
}

// --stage and --level, as Caffe's tools take them, for check, test and time; an error building a
// net says the phase, stages and level it was built for.
TEST(OnePassCheck, StageAndLevelSelectLayersAndErrorsNameThem) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("st.prototxt"),
                "layer { name: 'data' type: 'Input' top: 'data'\n"
                "  input_param { shape { dim: 1 dim: 4 } } }\n"
                "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip'\n"
                "  inner_product_param { num_output: 2 } }\n"
                "layer { name: 'deploy_only' type: 'InnerProduct' bottom: 'nothing' top: 'x'\n"
                "  inner_product_param { num_output: 2 } include { stage: 'deploy' } }\n"
                "layer { name: 'deep' type: 'Reshape' bottom: 'ip' top: 'r'\n"
                "  reshape_param { shape { dim: 7 } } include { min_level: 2 } }\n");
  const std::string net = dir.Path("st.prototxt");
  EXPECT_EQ(RunDtrain("check --model=" + net).exit_code, 0);
  EXPECT_FAILS_WITH(RunDtrain("check --model=" + net + " --stage=deploy,other"),
                    net +
                        " (phase TRAIN, stages 'deploy', 'other'): layer 'deploy_only' "
                        "(InnerProduct): bottom 'nothing' is not produced by any earlier layer");
  const std::string deep = " (phase TEST, level 3): layer 'deep' (Reshape): top shape 7";
  EXPECT_FAILS_WITH(RunDtrain("check --model=" + net + " --level=3"), "(phase TRAIN, level 3)");
  EXPECT_FAILS_WITH(RunDtrain("test --iterations=1 --model=" + net + " --level=3"), net + deep);
  EXPECT_FAILS_WITH(RunDtrain("time --iterations=1 --model=" + net + " --level=3"),
                    net + " (phase TRAIN, level 3): layer 'deep'");
  EXPECT_EQ(RunDtrain("time --iterations=1 --model=" + net + " --level=1").exit_code, 0);
  EXPECT_FAILS_WITH(RunDtrain("test --model=" + net + " --stage=a,,b"),
                    "--stage=a,,b has an empty stage name");
  WriteTextFile(dir.Path("s.prototxt"), "net: '" + net + "' base_lr: 1 lr_policy: 'fixed'\n");
  EXPECT_FAILS_WITH(RunDtrain("check --solver=" + dir.Path("s.prototxt") + " --stage=x"),
                    "--stage and --level go with --model");
}

// A filler dtrain lacks is named by check whether or not the net's data exists (the net is built,
// and its fillers met, only when it does: Intel's "gabor" passed check without its LMDB when
// dtrain lacked it).
TEST(OnePassCheck, UnknownFillersAreNamedWithoutTheData) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("g.prototxt"),
                "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
                "  data_param { source: '" +
                    dir.Path("no_lmdb") +
                    "' batch_size: 2 backend: LMDB } }\n"
                    "layer { name: 'c' type: 'Convolution' bottom: 'data' top: 'c'\n"
                    "  convolution_param { num_output: 2 kernel_size: 3\n"
                    "    weight_filler { type: 'sobel' } bias_filler { type: 'constant' } } }\n"
                    "layer { name: 'z' type: 'DummyData' top: 'z'\n"
                    "  dummy_data_param { shape { dim: 1 } data_filler { type: 'cosine' } } }\n"
                    "layer { name: 'w' type: 'Warp' bottom: 'c' top: 'w' }\n");
  EXPECT_FAILS_WITH(RunDtrain("check --model=" + dir.Path("g.prototxt")),
                    "  layer 'w': unknown layer type \"Warp\"\nsupported types: ");
  EXPECT_FAILS_WITH(RunDtrain("check --model=" + dir.Path("g.prototxt")),
                    dir.Path("g.prototxt") +
                        ": 2 filler(s) dtrain does not have:\n"
                        "  layer 'c': convolution_param.weight_filler: unknown filler type "
                        "\"sobel\"; supported: constant, uniform, gaussian, xavier, msra, "
                        "bilinear, positive_unitball, gabor\n"
                        "  layer 'z': dummy_data_param.data_filler[0]: unknown filler type "
                        "\"cosine\"");
}

}  // namespace
}  // namespace dtrain
