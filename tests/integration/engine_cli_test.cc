// The engine as a user meets it on the command line: --engine forces one, --verbose lists the
// choice per layer, `dtrain time` reports GFLOP/s, and both engines train a net to the same loss.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "data/data_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;

const std::string kLenet = std::string(DTRAIN_SOURCE_DIR) + "/bench/nets/lenet.prototxt";

TEST(EngineCli, VerboseTimeListsEveryChoiceAndGflops) {
  auto r = RunDtrain("time --model=" + kLenet + " --iterations=2 --threads=1 --verbose");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("engine: LeNet_bench / conv1 (Convolution): onednn "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("engine: LeNet_bench / ip2 (InnerProduct): onednn "), std::string::npos);
  EXPECT_NE(r.output.find("engine: LeNet_bench / pool1 (Pooling): onednn "), std::string::npos);
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(conv2\s+forward: +[0-9.]+ ms, +[0-9.]+ GFLOP/s)")))
      << r.output;
  EXPECT_NE(r.output.find("Convolution and InnerProduct layers: "), std::string::npos);
}

TEST(EngineCli, EngineFlagForcesReference) {
  auto r = RunDtrain("time --model=" + kLenet + " --iterations=1 --threads=1 --verbose "
                     "--engine=reference");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("conv1 (Convolution): reference (engine REFERENCE requested)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find(": onednn "), std::string::npos) << r.output;
}

TEST(EngineCli, UnknownEngineFlagIsAClearError) {
  auto r = RunDtrain("time --model=" + kLenet + " --iterations=1 --engine=cuda");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--engine: unknown engine 'cuda' (expected ONEDNN, MKLDNN, REFERENCE, "
                          "CAFFE or ANY)"),
            std::string::npos)
      << r.output;
}

// The last "loss = X" display line of a training log.
double FinalLoss(const std::string& log) {
  std::smatch m;
  std::string rest = log;
  double loss = -1;
  const std::regex line(R"(Iteration \d+.*, loss = ([-0-9.e]+))");
  while (std::regex_search(rest, m, line)) {
    loss = std::stod(m[1]);
    rest = m.suffix();
  }
  return loss;
}

TEST(EngineCli, BothEnginesTrainToTheSameLoss) {
  testing::TempDir dir;
  const std::string solver = dir.Path("solver.prototxt");
  testing::WriteTextFile(solver, "net: '" + kLenet +
                                     "'\nbase_lr: 0.01 momentum: 0.9 lr_policy: 'fixed' "
                                     "max_iter: 20 display: 20 random_seed: 3 snapshot_after_train: false\n");
  auto fast = RunDtrain("train --solver=" + solver + " --threads=1");
  auto reference = RunDtrain("train --solver=" + solver + " --threads=1 --engine=reference");
  ASSERT_EQ(fast.exit_code, 0) << fast.output;
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  const double a = FinalLoss(fast.output), b = FinalLoss(reference.output);
  ASSERT_GT(b, 0) << reference.output;
  EXPECT_NEAR(a, b, 1e-3 * b) << "oneDNN " << a << " vs reference " << b;
}

}  // namespace
}  // namespace dtrain
