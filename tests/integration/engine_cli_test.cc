// The engine as a user meets it on the command line: --engine forces one, --verbose lists the
// choice per layer, `dtrain time` reports GFLOP/s, and both engines train a net to the same loss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <vector>

#include "testing/files.h"
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
  // Pooling runs oneDNN's kernel by default only with AVX-512, dtrain's blocked loops on its
  // layout elsewhere.
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex(R"(engine: LeNet_bench / pool1 \(Pooling\): onednn (jit|blocked nChw8c))")))
      << r.output;
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex(R"(conv2\s+forward: +[0-9.]+ ms, +[0-9.]+ GFLOP/s)")))
      << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex(R"(Convolution layers: [0-9.]+ ms forward\+backward, [0-9.]+ GFLOP/s)")))
      << r.output;
  EXPECT_NE(r.output.find("InnerProduct layers: "), std::string::npos);
  EXPECT_NE(r.output.find("Layers that count their work: "), std::string::npos);
}

TEST(EngineCli, EngineFlagForcesReference) {
  auto r = RunDtrain("time --model=" + kLenet +
                     " --iterations=1 --threads=1 --verbose "
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
  EXPECT_NE(r.output.find("--engine: unknown engine 'cuda' (expected ONEDNN, MKLDNN, MKLDNN:CPU, "
                          "MKL2017, REFERENCE, CAFFE or ANY)"),
            std::string::npos)
      << r.output;
}

// The "loss = X" of every display line of a training log.
std::vector<double> Losses(const std::string& log) {
  std::vector<double> losses;
  const std::regex line(R"(Iteration \d+.*, loss = ([-0-9.e]+))");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
       ++it) {
    losses.push_back(std::stod((*it)[1]));
  }
  return losses;
}

TEST(EngineCli, BothEnginesTrainToTheSameLosses) {
  testing::TempDir dir;
  // The benchmark's LeNet with fresh random data every iteration (Caffe's DummyData default).
  std::string net;
  {
    std::ifstream in(kLenet);
    net.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t at = net.find("refill: false");
  ASSERT_NE(at, std::string::npos);
  net.replace(at, 13, "refill: true");
  testing::WriteTextFile(dir.Path("net.prototxt"), net);
  const std::string solver = dir.Path("solver.prototxt");
  testing::WriteTextFile(solver,
                         "net: '" + dir.Path("net.prototxt") +
                             "'\nbase_lr: 0.01 momentum: 0.9 lr_policy: 'fixed' max_iter: 12 "
                             "display: 1 random_seed: 3 snapshot_after_train: false\n");
  auto fast = RunDtrain("train --solver=" + solver + " --threads=1");
  auto reference = RunDtrain("train --solver=" + solver + " --threads=1 --engine=reference");
  ASSERT_EQ(fast.exit_code, 0) << fast.output;
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  const std::vector<double> a = Losses(fast.output), b = Losses(reference.output);
  ASSERT_GE(a.size(), 12u) << fast.output;
  ASSERT_EQ(a.size(), b.size()) << reference.output;
  EXPECT_GT(b[0], 1.0);  // ln(10) at the start: a real loss, not a collapsed one
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i], b[i], 1e-3 * std::max(b[i], 1e-2)) << "iteration " << i;
  }
}

}  // namespace
}  // namespace dtrain
