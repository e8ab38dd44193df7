// --weights through the real command line (train, test, time): weights are copied by layer name as
// Caffe copies them, and whatever did not match is said, layer by layer; --weights-strict makes
// any mismatch an error; a shape mismatch names both shapes.
#include <gtest/gtest.h>

#include <string>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

const char kInput[] = "input: 'data' input_shape { dim: 2 dim: 3 }\n";

// data -> ip1 (4) -> relu -> `second` (2 outputs): the second layer's name and width vary.
std::string TwoLayerNet(const std::string& second, int ip1_outputs = 4) {
  return std::string(kInput) +
         "layer { name: 'ip1' type: 'InnerProduct' bottom: 'data' top: 'ip1' "
         "inner_product_param { num_output: " +
         std::to_string(ip1_outputs) +
         " } }\n"
         "layer { name: 'relu' type: 'ReLU' bottom: 'ip1' top: 'ip1' }\n"
         "layer { name: '" +
         second +
         "' type: 'InnerProduct' bottom: 'ip1' top: 'out' "
         "inner_product_param { num_output: 2 } }\n";
}

// Writes the weights of TwoLayerNet("ip2") to dir/w.caffemodel, as a trained net saves them.
void WriteWeights(const testing::TempDir& dir) {
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(TwoLayerNet("ip2"), "net", &param).ok());
  auto net = Net::Create(param, NetState(), 5);
  ASSERT_TRUE(net.ok()) << net.status().message();
  NetParameter weights;
  (*net)->ToProto(&weights);
  ASSERT_TRUE(WriteBinaryProtoAtomically(dir.Path("w.caffemodel"), weights).ok());
}

TEST(WeightsCli, RenamedLayerIsReportedOnBothSides) {
  testing::TempDir dir;
  WriteWeights(dir);
  WriteTextFile(dir.Path("renamed.prototxt"), TwoLayerNet("ip2_new"));
  const std::string w = dir.Path("w.caffemodel");
  for (const std::string command : {"test --iterations=1", "time --iterations=1"}) {
    auto r = RunDtrain(command + " --model=renamed.prototxt --weights=" + w, dir.Path(""));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(w + ": ignoring source layer 'ip2' and its parameters: the net has no "
                                "layer of that name"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("layer 'ip2_new' (InnerProduct) keeps its initialisation: no weights "
                            "file has a layer of that name"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("Copied weights from " + w + ": 1 layer(s) with parameters"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("'ip1' (InnerProduct) keeps"), std::string::npos) << r.output;
  }
  auto r = RunDtrain("test --iterations=1 --model=renamed.prototxt --weights-strict --weights=" + w,
                     dir.Path(""));
  EXPECT_FAILS_WITH(r,
                    "--weights-strict: the weights do not match the net by layer name: source "
                    "layer(s) with parameters the net has no layer for: 'ip2' (in " +
                        w + "); layer(s) with parameters no weights file initialises: 'ip2_new'");
}

TEST(WeightsCli, MatchingWeightsSayNothingAndPassStrict) {
  testing::TempDir dir;
  WriteWeights(dir);
  WriteTextFile(dir.Path("same.prototxt"), TwoLayerNet("ip2"));
  auto r = RunDtrain("test --iterations=1 --model=same.prototxt --weights-strict --weights=" +
                         dir.Path("w.caffemodel"),
                     dir.Path(""));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 layer(s) with parameters"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("ignoring"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("keeps its initialisation"), std::string::npos) << r.output;
}

TEST(WeightsCli, ShapeMismatchNamesBothShapes) {
  testing::TempDir dir;
  WriteWeights(dir);
  WriteTextFile(dir.Path("wider.prototxt"), TwoLayerNet("ip2", 5));
  auto r =
      RunDtrain("test --iterations=1 --model=wider.prototxt --weights=" + dir.Path("w.caffemodel"),
                dir.Path(""));
  EXPECT_FAILS_WITH(r,
                    dir.Path("w.caffemodel") +
                        ": layer 'ip1' parameter 0: shape mismatch: "
                        "expected 5 3 (15), file has 4 3 (12) (rename the layer to learn it from "
                        "scratch)");
}

// Fine-tuning: train --weights reports the same, and without --weights the solver's own
// `weights` field is used, as in Caffe.
TEST(WeightsCli, TrainReportsMismatchesAndReadsTheSolversWeights) {
  testing::TempDir dir;
  WriteWeights(dir);
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 8, 1, 4, 2);
  const std::string net =
      "layer { name: 'd' type: 'Data' top: 'flat' top: 'label' "
      "data_param { source: 'lmdb' batch_size: 2 } }\n"
      "layer { name: 'pad' type: 'InnerProduct' bottom: 'flat' top: 'data' "
      "inner_product_param { num_output: 3 } }\n" +
      TwoLayerNet("ip2_new").substr(sizeof(kInput) - 1) +
      "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'out' bottom: 'label' top: 'loss' }\n";
  WriteTextFile(dir.Path("net.prototxt"), net);
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: 'net.prototxt' base_lr: 0.01 lr_policy: 'fixed' max_iter: 1 "
                "snapshot_after_train: false weights: 'w.caffemodel'");
  auto r = RunDtrain("train --solver=solver.prototxt", dir.Path(""));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Copied weights from w.caffemodel: 1 layer(s) with parameters"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("w.caffemodel: ignoring source layer 'ip2' and its parameters"),
            std::string::npos)
      << r.output;
  for (const char* layer : {"'pad'", "'ip2_new'"}) {
    EXPECT_NE(r.output.find(std::string("layer ") + layer +
                            " (InnerProduct) keeps its "
                            "initialisation"),
              std::string::npos)
        << r.output;
  }
  r = RunDtrain("train --solver=solver.prototxt --weights-strict", dir.Path(""));
  EXPECT_FAILS_WITH(r, "layer(s) with parameters no weights file initialises: 'pad', 'ip2_new'");
}

}  // namespace
}  // namespace dtrain
