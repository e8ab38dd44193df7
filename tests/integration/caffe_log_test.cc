// Caffe's log semantics through the real command line: the last loss line is a forward pass at
// the final weights, numbers print as Caffe prints them (C++'s default float format), dtrain's own
// summary line is one that Caffe's log parsers skip, and `dtrain check` prints nothing after its
// error.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

// A classifier over 4 records read in batches of 4, so every batch (train and test) is the whole
// LMDB in the same order: the test loss at iteration N is the train net's loss at those weights.
void WriteWholeBatchJob(const testing::TempDir& dir, const std::string& loss_extra,
                        const std::string& solver_extra) {
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 4, 1, 8, 2);
  WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "d" type: "Data" top: "data" top: "label"
            data_param { source: "lmdb" batch_size: 4 } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
            inner_product_param { num_output: 2 weight_filler { type: "gaussian" std: 0.1 } } }
    layer { name: "accuracy" type: "Accuracy" bottom: "ip" bottom: "label" top: "accuracy" }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" )" +
                                              loss_extra + " }");
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: 'net.prototxt' base_lr: 0.1 lr_policy: 'fixed' momentum: 0.9 "
                "max_iter: 10 display: 5 test_iter: 1 test_interval: 5 "
                "snapshot_prefix: 'snap' " +
                    solver_extra);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CaffeLog, LastLossLineIsTheLossAtTheFinalWeights) {
  testing::TempDir dir;
  WriteWholeBatchJob(dir, "", "");
  auto r = RunDtrain("train --solver=solver.prototxt", dir.Path(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch last_loss, test_loss;
  ASSERT_TRUE(std::regex_search(r.output, last_loss,
                                std::regex(R"(\] Iteration 10, loss = ([-0-9.e+]+)\n)")))
      << r.output;
  // The final test at iteration 10 runs the same weights on the same batch.
  const std::string after = last_loss.suffix();
  ASSERT_TRUE(std::regex_search(after, test_loss,
                                std::regex(R"(Test net output #1: loss = ([-0-9.e+]+) )")))
      << r.output;
  EXPECT_EQ(last_loss[1], test_loss[1]) << r.output;
}

TEST(CaffeLog, LossWeightsAndSmallLossesPrintAsCaffePrintsThem) {
  testing::TempDir dir;
  WriteWholeBatchJob(dir, "loss_weight: 1e-07", "");
  auto r = RunDtrain("train --solver=solver.prototxt", dir.Path(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Six significant digits in the default format: "(* 1e-07 = 6.93147e-08 loss)", never the
  // fixed six decimals of "(* 0.000000 = 0.000000 loss)".
  const std::regex weighted(
      R"(Train net output #1: loss = [0-9.]+(e-0[0-9])? \(\* 1e-07 = [0-9.]+e-[0-9]+ loss\))");
  EXPECT_TRUE(std::regex_search(r.output, weighted)) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex(R"(Test net output #1: loss = [0-9.]+ \(\* 1e-07 = [0-9.]+e-[0-9]+ loss\))")))
      << r.output;
  EXPECT_EQ(r.output.find("0.000000"), std::string::npos) << r.output;
}

// What Caffe's tools/extra/parse_log.sh and parse_log.py take from a log: the train table is every
// line with ", loss = " (its iteration from "Iteration N"), the test table the "Test net output"
// lines after "Iteration N, Testing net", learning rates the "lr = " lines.
TEST(CaffeLog, FinalScoresLineIsOneCaffesParsersSkip) {
  testing::TempDir dir;
  WriteWholeBatchJob(dir, "", "");
  auto r = RunDtrain("train --solver=solver.prototxt", dir.Path(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex(
          R"(\] Final test scores \(net #0, iteration 10\): accuracy [0-9.]+, loss [0-9.e+-]+\n)")))
      << r.output;
  int train_rows = 0;
  for (const std::string& line : Lines(r.output)) {
    if (line.find(", loss = ") != std::string::npos) {
      ++train_rows;
      EXPECT_TRUE(std::regex_search(line, std::regex(R"(\] Iteration \d+( \(|, loss))"))) << line;
    }
    if (line.find("Final test scores") != std::string::npos) {
      for (const char* pattern :
           {"Iteration ", "Test net output", "Testing net", "lr = ", "Test "}) {
        EXPECT_EQ(line.find(pattern), std::string::npos) << pattern << " in: " << line;
      }
    }
  }
  EXPECT_EQ(train_rows, 3) << r.output;  // iterations 0 and 5, and the final loss at 10
}

TEST(CaffeLog, CheckPrintsNothingAfterItsError) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                "input: 'a' input_shape { dim: 2 dim: 3 }\n"
                "input: 'b' input_shape { dim: 2 dim: 4 }\n"
                "layer { name: 'sum' type: 'Eltwise' bottom: 'a' bottom: 'b' top: 's' }\n");
  auto r = RunDtrain("check --model=" + dir.Path("net.prototxt"));
  EXPECT_FAILS_WITH(r, "layer 'sum' (Eltwise)");
  const std::vector<std::string> lines = Lines(r.output);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("dtrain check: error: "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(", phase TRAIN: "), std::string::npos) << r.output;  // no table
}

TEST(CaffeLog, UnknownRegularizationTypeStopsTrainingAndCheck) {
  testing::TempDir dir;
  WriteWholeBatchJob(dir, "", "weight_decay: 0.0005 regularization_type: 'L3'");
  const std::string message = "unknown regularization_type \"L3\"; supported: L2 (the default), L1";
  EXPECT_FAILS_WITH(RunDtrain("train --solver=solver.prototxt", dir.Path("")), message);
  EXPECT_FAILS_WITH(RunDtrain("check --solver=solver.prototxt", dir.Path("")),
                    "solver.prototxt: " + message);
}

}  // namespace
}  // namespace dtrain
