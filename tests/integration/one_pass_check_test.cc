// A file written for a Caffe fork is refused once, with everything it lacks named: every unknown
// field (file:line:column, the message it is in, a hint where the fork is known), then every
// unknown layer type (the layer's name, a hint), through `dtrain check` and every command that
// reads a net.
#include <gtest/gtest.h>

#include <string>

#include "core/proto_io.h"
#include "data/data_test_util.h"
#include "proto/net.pb.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

TEST(OnePassCheck, EveryUnknownFieldIsNamedWithItsLineAndHint) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("ssd.prototxt"),
                "input: 'data' input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"        // 1
                "layer { name: 'perm' type: 'Permute' bottom: 'data' top: 'p'\n"     // 2
                "        permute_param { order: 0 order: 2 order: 3 order: 1 } }\n"  // 3
                "layer { name: 'pool' type: 'Pooling' bottom: 'data' top: 'q'\n"     // 4
                "        pooling_param { kernel_size: 2 stride: 2 chicken: 3 } }\n"  // 5
                "layer { name: 'prior' type: 'PriorBox' bottom: 'q' top: 'r'\n"      // 6
                "        prior_box_param { min_size: 30 } }\n");                     // 7
  const std::string file = dir.Path("ssd.prototxt");
  for (const std::string command : {"check --model=", "time --iterations=1 --model="}) {
    auto r = RunDtrain(command + file);
    EXPECT_FAILS_WITH(r, file +
                             ":3:9: unknown field \"permute_param\" in LayerParameter "
                             "(permute_param belongs to SSD's (weiliu89/caffe) Permute layer, "
                             "which dtrain does not have)");
    EXPECT_FAILS_WITH(r, file + ":5:50: unknown field \"chicken\" in PoolingParameter\n");
    EXPECT_FAILS_WITH(r, file +
                             ":7:9: unknown field \"prior_box_param\" in LayerParameter "
                             "(prior_box_param belongs to SSD's (weiliu89/caffe) PriorBox layer");
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

TEST(OnePassCheck, EveryUnknownLayerTypeIsNamedWithItsHint) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("fork.prototxt"),
                "input: 'data' input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"
                "layer { name: 'prior' type: 'PriorBox' bottom: 'data' top: 'a' }\n"
                "layer { name: 'relu' type: 'ReLU' bottom: 'data' top: 'b' }\n"
                "layer { name: 'rpn' type: 'Python' bottom: 'b' top: 'c' "
                "        include { phase: TEST } }\n"
                "layer { name: 'warp' type: 'Warp' bottom: 'b' top: 'd' }\n");
  auto r = RunDtrain("check --model=" + dir.Path("fork.prototxt"));
  EXPECT_FAILS_WITH(r, dir.Path("fork.prototxt") +
                           ": 3 layer(s) of a type dtrain does not have:\n"
                           "  layer 'prior': unknown layer type \"PriorBox\" (PriorBox is SSD's "
                           "(weiliu89/caffe) layer)\n"
                           "  layer 'rpn': unknown layer type \"Python\" (Python layers run the "
                           "model's own Python code inside Caffe; dtrain cannot run them)\n"
                           "  layer 'warp': unknown layer type \"Warp\"\n"
                           "supported types: ");
  // Commands that build the net (here the TRAIN phase) name the TEST phase's 'rpn' too.
  r = RunDtrain("time --iterations=1 --model=" + dir.Path("fork.prototxt"));
  EXPECT_FAILS_WITH(r,
                    "3 layer(s) of a type dtrain does not have:\n"
                    "  layer 'prior': unknown layer type \"PriorBox\" (PriorBox is SSD's "
                    "(weiliu89/caffe) layer)\n"
                    "  layer 'rpn': unknown layer type \"Python\" (Python layers run the "
                    "model's own Python code inside Caffe; dtrain cannot run them)\n"
                    "  layer 'warp': unknown layer type \"Warp\"\n"
                    "supported types: ");
}

}  // namespace
}  // namespace dtrain
