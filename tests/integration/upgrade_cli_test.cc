// dtrain upgrade net | solver through the real command line, upgrade-on-load in `dtrain check`,
// and every BVLC Caffe net and solver (testing::CaffeModelsDir(), V1 ones included; skipped where
// absent) checking clean.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/proto_io.h"
#include "proto/solver.pb.h"
#include "testing/caffe_nets.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;
using testing::RunDtrain;
using testing::WriteTextFile;

const char kV1Net[] = R"(
name: "old"
input: "data" input_dim: 2 input_dim: 3 input_dim: 1 input_dim: 1
layers { name: "fc" type: INNER_PRODUCT bottom: "data" top: "fc" blobs_lr: 1 blobs_lr: 2
         weight_decay: 1 weight_decay: 0 inner_product_param { num_output: 2 } }
layers { name: "prob" type: SOFTMAX bottom: "fc" top: "prob" }
)";

const char kCurrentNet[] = R"(
name: "old"
layer { name: "input" type: "Input" top: "data" input_param { shape { dim: 2 dim: 3 dim: 1 dim: 1 } } }
layer { name: "fc" type: "InnerProduct" bottom: "data" top: "fc"
        param { lr_mult: 1 decay_mult: 1 } param { lr_mult: 2 decay_mult: 0 }
        inner_product_param { num_output: 2 } }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
)";

template <typename M>
void ExpectFileIs(const std::string& path, const std::string& expected_text) {
  M actual, expected;
  ASSERT_TRUE(ReadTextProto(path, &actual).ok()) << path;
  ASSERT_TRUE(ParseTextProto(expected_text, "expected", &expected).ok());
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(expected, actual)) << diff;
}

TEST(UpgradeCli, NetTextInTextOut) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("old.prototxt"), kV1Net);
  const auto r =
      RunDtrain("upgrade net " + dir.Path("old.prototxt") + " " + dir.Path("new.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(dir.Path("old.prototxt") +
                          ": upgraded from V1 layer syntax, legacy input fields"),
            std::string::npos)
      << r.output;
  ExpectFileIs<NetParameter>(dir.Path("new.prototxt"), kCurrentNet);
  // The result needs nothing more, and `check` loads the old file as it is.
  const auto again =
      RunDtrain("upgrade net " + dir.Path("new.prototxt") + " " + dir.Path("same.prototxt"));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(again.output.find("upgraded from"), std::string::npos) << again.output;
  const auto check = RunDtrain("check --model=" + dir.Path("old.prototxt"));
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("upgraded from V1 layer syntax"), std::string::npos) << check.output;
}

TEST(UpgradeCli, BinaryCaffemodelKeepsItsWeights) {
  testing::TempDir dir;
  NetParameter v1;
  ASSERT_TRUE(ParseTextProto(R"(layers { name: "fc" type: INNER_PRODUCT
                                         blobs { shape { dim: 2 } data: 0.5 data: -1 } })",
                             "v1", &v1)
                  .ok());
  ASSERT_TRUE(WriteBinaryProtoAtomically(dir.Path("v1.caffemodel"), v1).ok());
  const auto r = RunDtrain("upgrade net --binary " + dir.Path("v1.caffemodel") + " " +
                           dir.Path("new.caffemodel"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  NetParameter out, expected;
  ASSERT_TRUE(ReadBinaryProto(dir.Path("new.caffemodel"), &out).ok());
  ASSERT_TRUE(ParseTextProto(R"(layer { name: "fc" type: "InnerProduct"
                                        blobs { shape { dim: 2 } data: 0.5 data: -1 } })",
                             "expected", &expected)
                  .ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(expected, out))
      << out.DebugString();
}

TEST(UpgradeCli, SolverWithLegacyTypeAndInlineV1Net) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("s.prototxt"), std::string("base_lr: 0.1 solver_type: ADAGRAD\n"
                                                    "net_param {") +
                                            kV1Net + "}\n");
  const auto r =
      RunDtrain("upgrade solver " + dir.Path("s.prototxt") + " " + dir.Path("s.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("upgraded the deprecated solver_type enum to type: \"AdaGrad\""),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(dir.Path("s.prototxt") + " (net_param): upgraded from V1 layer syntax"),
            std::string::npos)
      << r.output;
  ExpectFileIs<SolverParameter>(dir.Path("s.prototxt"),
                                std::string("base_lr: 0.1 type: \"AdaGrad\"\n"
                                            "net_param {") +
                                    kCurrentNet + "}\n");
}

TEST(UpgradeCli, BadInvocationsAndFiles) {
  testing::TempDir dir;
  EXPECT_FAILS_WITH(RunDtrain("upgrade net " + dir.Path("a")),
                    "expected IN and OUT, got 1 argument(s)");
  EXPECT_FAILS_WITH(RunDtrain("upgrade"), "dtrain upgrade: needs a subcommand");
  EXPECT_FAILS_WITH(RunDtrain("upgrade model a b"), "dtrain upgrade: unknown subcommand 'model'");
  WriteTextFile(dir.Path("mixed.prototxt"),
                "name: 'm' layer { name: 'a' type: 'ReLU' } layers { name: 'b' type: RELU }");
  EXPECT_FAILS_WITH(RunDtrain("upgrade net " + dir.Path("mixed.prototxt") + " " + dir.Path("o")),
                    dir.Path("mixed.prototxt") +
                        ": net 'm' mixes current 'layer' entries (first: "
                        "'a') with V1 'layers' entries (first: 'b'); use one syntax");
  EXPECT_FALSE(fs::exists(dir.Path("o")));
  WriteTextFile(dir.Path("v0.prototxt"), "layers { layer { name: 'x' type: 'warp' } }");
  EXPECT_FAILS_WITH(
      RunDtrain("check --model=" + dir.Path("v0.prototxt")),
      dir.Path("v0.prototxt") + ": layer 'x' (V0 type \"warp\"): unknown V0 layer type");
  WriteTextFile(dir.Path("s.prototxt"), "solver_type: ADAM type: 'SGD' net: 'n.prototxt'");
  EXPECT_FAILS_WITH(RunDtrain("check --solver=" + dir.Path("s.prototxt")),
                    dir.Path("s.prototxt") +
                        ": solver_type: ADAM (deprecated) and type: \"SGD\" "
                        "name different solvers; keep only type");
}

// Caffe's solvers name their nets relative to Caffe's root, so every check runs from there. A
// file may fail only for a reason that has nothing to do with its syntax: a layer type dtrain
// lacks, a net file Caffe's notebook generates, or a net whose data layer a solver stage picks.
TEST(UpgradeCli, EveryBvlcCaffeFileChecks) {
  if (const std::string missing = testing::CaffeModelsMissing(); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  // The autoencoder net alone has no TEST data layer, in Caffe too: its solver's test_state stages
  // pick one (and its solver checks). pycaffe's example nets hold Python layers.
  const char* const kUnrelated[] = {
      "Python layers run the model's own Python code; this dtrain was built without Python",
      "cannot import module",  // a Python layer's module, from pycaffe's examples, not on the path
      "mnist/lenet_auto_train.prototxt: cannot open",
      "mnist_autoencoder.prototxt (phase TEST): layer 'flatdata' (Flatten): bottom 'data' is not "
      "produced"};
  const std::string root = testing::CaffeModelsDir();
  int solvers = 0, nets = 0, passed = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".prototxt") continue;
    const bool solver = entry.path().filename().string().find("solver") != std::string::npos;
    const std::string rel = path.substr(root.size() + 1);
    const auto r =
        RunDtrain(std::string("check ") + (solver ? "--solver=" : "--model=") + rel, root);
    ++(solver ? solvers : nets);
    if (r.exit_code == 0) {
      ++passed;
      continue;
    }
    bool unrelated = false;
    for (const char* reason : kUnrelated) unrelated |= r.output.find(reason) != std::string::npos;
    EXPECT_TRUE(unrelated) << rel << ":\n" << r.output;
  }
  std::cout << "checked " << solvers << " solvers and " << nets << " nets under " << root << ": "
            << passed << " OK, the rest need a layer type dtrain lacks or a file Caffe generates\n";
  EXPECT_GE(passed, 51);  // all but the five above
  EXPECT_GT(solvers, 20);
  EXPECT_GT(nets, 20);
}

TEST(UpgradeCli, ConsolidatedV1LenetSolverChecks) {
  if (const std::string missing = testing::CaffeModelsMissing(); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  const auto r = RunDtrain("check --solver=examples/mnist/lenet_consolidated_solver.prototxt",
                           testing::CaffeModelsDir());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("lenet_consolidated_solver.prototxt (net_param): upgraded from "
                          "V1 layer syntax"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace dtrain
