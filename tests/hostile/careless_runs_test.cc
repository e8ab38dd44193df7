// Hostile input, careless command lines and runs: a switch given a value that is no boolean, a
// dry run of a job the launch refuses, --min-hosts beyond the hostfile, restarts of a job that
// fails the same way at setup every time, a closing line of test scores from long before the end,
// and a prototxt nested deeper than any net (protobuf recursed into it until the stack ran out).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "hostile/hostile.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::TinyRun;
using testing::WriteTextFile;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CarelessRuns, ASwitchTakesNoValueOrABooleanNothingElse) {
  TinyRun run;
  WriteTextFile(run.dir.Path("hosts"), "localhost slots=2\n");
  const std::string job = " -- train --solver=" + run.dir.Path("solver.prototxt");
  // Read as false before: the job really ran.
  EXPECT_REFUSED_WITH(
      RunDtrainWithin(60, "launch --hostfile=" + run.dir.Path("hosts") + " --dry-run=abc" + job),
      "flag --dry-run is a switch: give it no value, or true or false, not 'abc'");
  EXPECT_REFUSED_WITH(run.Train("--global-batch=64"),
                      "flag --global-batch is a switch: give it no value, or true or false, not "
                      "'64'");
  EXPECT_FALSE(std::filesystem::exists(run.Snap("tiny_iter_2.caffemodel")));
  // Booleans in any case are read as such.
  const testing::CommandResult dry = RunDtrainWithin(
      60, "launch --hostfile=" + run.dir.Path("hosts") + " --dry-run=TRUE --no-preflight=no" + job);
  EXPECT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find("# 2 rank(s) on 1 host(s)"), std::string::npos) << dry.output;
}

TEST(CarelessRuns, TheDryRunRefusesWhatTheLaunchRefuses) {
  TinyRun run;
  WriteTextFile(run.dir.Path("hosts"), "localhost slots=2\n");
  const std::string launch = "launch --hostfile=" + run.dir.Path("hosts") + " --no-preflight ";
  const std::string solver = " --solver=" + run.dir.Path("solver.prototxt");
  const struct {
    std::string args, error;
  } cases[] = {
      {"-- test --iterations=2",
       "the job's test has no --model (dtrain test cannot run without it)"},
      {"-- train", "the job's train has no --solver (dtrain train cannot run without it)"},
      {"-- train" + solver + " --global-batch=64",
       "the job's train: flag --global-batch is a switch"},
      {"-- train" + solver + " --bogus", "the job's train: unknown flag '--bogus'"},
      {"-- train" + solver + " --snapshot=a --weights=b",
       "the job's train gives --snapshot (resume) and --weights (fine-tune): give one"},
      {"-- convert" + solver,
       "the job must be a dtrain train, test or time command, not 'convert'"},
      {"--min-hosts=3 -- train" + solver, "--min-hosts=3 is more than the 1 host(s) of " +
                                              run.dir.Path("hosts") + ": no run could go on"},
  };
  for (const auto& c : cases) {
    for (const std::string dry : {"--dry-run ", ""}) {
      const testing::CommandResult r = RunDtrainWithin(60, launch + dry + c.args);
      EXPECT_REFUSED_WITH(r, c.error);
      EXPECT_EQ(r.output.find("mpirun"), std::string::npos) << r.output;  // nothing ran
    }
  }
}

// A net refused at setup fails the same way on every run: launch stops after the second such run
// instead of restarting it a million times.
TEST(CarelessRuns, AFailureAtSetupIsNotRestartedForever) {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "no mpirun";
  TinyRun run("", "name: 'bad' layer { name: 'x' type: 'NoSuchLayer' top: 'x' }\n");
  WriteTextFile(run.dir.Path("hosts"), "localhost slots=1\n");
  const testing::CommandResult r = RunDtrainWithin(
      180,
      "launch --hostfile=" + run.dir.Path("hosts") +
          " --no-preflight --bind=none --max-restarts=1000000 --mpirun=" + DTRAIN_SOURCE_DIR +
          "/tests/hostile/local_mpirun.sh -- train --solver=" + run.dir.Path("solver.prototxt"));
  EXPECT_REFUSED_WITH(r,
                      "not restarted: the job failed twice in a row before its first iteration "
                      "with every host usable");
  EXPECT_EQ(Count(r.output, "launch: restart "), 1u) << r.output;
  EXPECT_NE(r.output.find("NoSuchLayer"), std::string::npos) << r.output;
}

TEST(CarelessRuns, AnOldTestIsNeverPresentedAsTheFinalOne) {
  TinyRun rare("test_iter: 1 test_interval: 2500");
  const testing::CommandResult r = rare.Train();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("Final test scores"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No test ran at the end (iteration 4: test_interval 2500 does not "
                          "divide it, so, as in Caffe, none); the last test scores (net #0) are "
                          "from iteration 0: loss "),
            std::string::npos)
      << r.output;
  TinyRun often("test_iter: 1 test_interval: 2");
  const testing::CommandResult f = often.Train();
  ASSERT_EQ(f.exit_code, 0) << f.output;
  EXPECT_NE(f.output.find("Final test scores (net #0, iteration 4): loss "), std::string::npos)
      << f.output;
}

TEST(CarelessRuns, APrototxtNestedDeeperThanAnyNetIsRefusedWithItsLine) {
  TempDir dir;
  std::string deep = "name: 'deep'\nlayer { name: 'a' type: 'ReLU'\n";
  for (int i = 0; i < 20000; ++i) deep += "unknown_field { ";
  for (int i = 0; i < 20000; ++i) deep += "} ";
  deep += "}\n";
  WriteTextFile(dir.Path("deep.prototxt"), deep);
  EXPECT_REFUSED_WITH(
      RunDtrainWithin(60, "check --model=" + dir.Path("deep.prototxt")),
      dir.Path("deep.prototxt") + ":3:1599: messages nested more than 100 levels deep");
  // Strings and comments do not count; known messages 100 deep still reach protobuf's own checks.
  std::string quoted = "name: '{{{{' # <<<<<<\n";
  for (int i = 0; i < 150; ++i) quoted += "# {\n";
  WriteTextFile(dir.Path("quoted.prototxt"), quoted +
                                                 "layer { name: 'r' type: 'ReLU' bottom: "
                                                 "'x' top: 'x' }\n");
  const testing::CommandResult ok =
      RunDtrainWithin(60, "check --model=" + dir.Path("quoted.prototxt"));
  EXPECT_EQ(ok.output.find("nested more than"), std::string::npos) << ok.output;
  // An unknown field's name of 200,000 bytes is named, not matched by a recursive expression.
  WriteTextFile(dir.Path("long.prototxt"), "name: 'n' " + std::string(200000, 'q') + ": 1\n");
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "check --model=" + dir.Path("long.prototxt")),
                      "unknown field \"qqqq");
}

// Intel Caffe's solver and data fields given what Intel Caffe never applied or stops on: refused
// by train and check before anything is built or written, naming the field.
TEST(CarelessRuns, IntelFieldsThatMeanNothingAreRefusedByName) {
  const struct {
    std::string extra, error;
  } cases[] = {
      {"type: 'Adam' local_lr_auto: true",
       "local_lr_auto (LARS) is part of SGD's update in Intel Caffe; under type \"Adam\" it never "
       "applied"},
      {"local_lr_auto: true local_gw_ratio: -1",
       "local_gw_ratio must be a finite number > 0 with local_lr_auto, got -1"},
      {"warmup_iter: -5", "warmup_iter must not be negative, got -5"},
      {"warmup_iter: 5 warmup_start_lr: -0.5", "warmup_start_lr must be a finite rate >= 0"},
  };
  for (const auto& c : cases) {
    TinyRun run(c.extra);
    for (const std::string command : {"train --solver=", "check --solver="}) {
      EXPECT_REFUSED_WITH(RunDtrainWithin(60, command + run.dir.Path("solver.prototxt")), c.error);
    }
    EXPECT_TRUE(testing::FilesUnder(run.dir.Path("snap")).empty()) << c.extra;
  }
  // The solver's lr_policy is multistep; multifixed and plateau with absurd lists, inline.
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), testing::kTinyNet);
  for (const auto& [policy, error] : std::vector<std::pair<std::string, std::string>>{
           {"lr_policy: 'multifixed' stagelr: 0.1 stageiter: 5 stageiter: 9",
            "lr_policy \"multifixed\" needs as many stageiter as stagelr entries"},
           {"lr_policy: 'plateau' plateau_winsize: -3",
            "lr_policy \"plateau\" needs positive plateau_winsize entries, got -3"}}) {
    WriteTextFile(dir.Path("s.prototxt"), "net: '" + dir.Path("net.prototxt") +
                                              "' base_lr: 0.1 max_iter: 2 " + policy + "\n");
    EXPECT_REFUSED_WITH(RunDtrainWithin(60, "train --solver=" + dir.Path("s.prototxt")), error);
  }
  // Intel's Data shuffle with a data server's source: the server orders the records.
  WriteTextFile(dir.Path("served.prototxt"),
                "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
                "  data_param { source: 'tcp://127.0.0.1:9' batch_size: 2 shuffle: true } }\n");
  EXPECT_REFUSED_WITH(
      RunDtrainWithin(60, "time --iterations=1 --model=" + dir.Path("served.prototxt")),
      "data_param.shuffle with a data server's source: the server orders the records");
}

// trust_ratio_form and LAMB given what they cannot mean: refused by train and check before
// anything is built or written, naming the field and value.
TEST(CarelessRuns, TrustRatioSettingsThatMeanNothingAreRefusedByName) {
  const struct {
    std::string extra, error;
  } cases[] = {
      {"trust_ratio_form: LAYERWISE",
       "trust_ratio_form: LAYERWISE says how LARS (local_lr_auto: true under type \"SGD\") and "
       "type \"LAMB\" apply their trust ratio; under type \"SGD\" without local_lr_auto it would "
       "change nothing: remove it"},
      {"type: 'LAMB' local_lr_auto: true",
       "local_lr_auto (LARS) is SGD's rule; type \"LAMB\" applies its own trust ratio"},
      {"type: 'LAMB' momentum: 1", "type \"LAMB\" needs momentum (its beta1) in [0, 1), got 1"},
      {"type: 'LAMB' momentum2: 1.5",
       "type \"LAMB\" needs momentum2 (its beta2) in [0, 1), got 1.5"},
      {"type: 'LAMB' delta: 0",
       "type \"LAMB\" needs delta (its epsilon) a finite number > 0, got 0"},
      {"type: 'LAMB' weight_decay: -0.01",
       "weight_decay must be a finite number >= 0 with type \"LAMB\", got -0.01"},
      {"type: 'LAMB' regularization_type: 'L1'", "regularization_type \"L1\" with type \"LAMB\""},
  };
  for (const auto& c : cases) {
    TinyRun run(c.extra);
    for (const std::string command : {"train --solver=", "check --solver="}) {
      EXPECT_REFUSED_WITH(RunDtrainWithin(60, command + run.dir.Path("solver.prototxt")), c.error);
    }
    EXPECT_TRUE(testing::FilesUnder(run.dir.Path("snap")).empty()) << c.extra;
  }
}

}  // namespace
}  // namespace dtrain
