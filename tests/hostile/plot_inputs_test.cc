// Hostile input to `dtrain plot`: every line of a log or metrics file is a user's bytes. Numbers
// beyond their bounds are refused naming the file and line; lines of any length are read without
// recursion; values so close that rounding hides their difference, huge and tiny ones, odd bytes
// and too many curves give a picture or a clear error, never a crash or a hang. The parsers'
// fuzz target runs here too, on random and mutated input (scripts/fuzz.sh runs it under
// libFuzzer).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "fuzz/plot_inputs_fuzz_target.h"
#include "hostile/hostile.h"
#include "report/caffe_log_line.h"
#include "report/chart_axis.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

testing::CommandResult Plot(const TempDir& dir, const std::string& file, const std::string& text,
                            const std::string& flags = "") {
  WriteTextFile(dir.Path(file), text);
  return RunDtrainWithin(60,
                         "plot " + dir.Path(file) + " --output=" + dir.Path("c.png") + " " + flags);
}

TEST(PlotInputs, NumbersBeyondTheirBoundsAreRefusedNamingTheLine) {
  TempDir dir;
  const std::string digits(200000, '9');
  const struct {
    std::string log, error;
  } cases[] = {
      {"Iteration 1, loss = 2\nIteration 9999999999999999, loss = 1\n",
       "run.log:2: iteration number '9999999999999999' (16 digits) is out of range (at most 15 "
       "digits)"},
      {"Iteration 99999999999, Testing net (#99999999999)\n",
       "run.log:1: test net #99999999999 is out of range (at most #999)"},
      {"Iteration " + digits + ", loss = 1\n",
       "run.log:1: iteration number '99999999999999999999... (200000 bytes)' (200000 digits)"},
      {"Iteration 3, loss = 1" + digits + "\n",
       "run.log:1: a value of 200001 characters is out of range (at most 64)"},
      {"Iteration 3, Testing net (#0)\nTest net output #0: " + std::string(300, 'a') + " = 1\n",
       "run.log:2: a test output name of 300 bytes is out of range (at most 200)"},
  };
  for (const auto& c : cases) {
    const testing::CommandResult r = Plot(dir, "run.log", c.log);
    EXPECT_REFUSED_WITH(r, dir.Path(c.error));
    EXPECT_FALSE(std::filesystem::exists(dir.Path("c.png")));
  }
  const testing::CommandResult net = Plot(
      dir, "m.jsonl", "{\"event\":\"test\",\"iter\":1,\"net\":1e20,\"scores\":{\"accuracy\":1}}\n");
  EXPECT_REFUSED_WITH(net,
                      dir.Path("m.jsonl:1: \"net\" is 1e+20, not a test net's index in [0, 999]"));
}

TEST(PlotInputs, LongLinesAndLargeIterationsThatFitArePlotted) {
  TempDir dir;
  // An 11-digit iteration (past an int) is a number like any other; a 200,000-digit word that is
  // no number is a line like any other.
  const testing::CommandResult r =
      Plot(dir, "run.log",
           "Iteration 99999999999, loss = 1\nIteration 100000000000, loss = 0.5\n" +
               std::string(200000, '7') + "\nIteration 5 (" + std::string(100000, '(') +
               "), loss = 0.7\n");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("plot: 1 curve(s) of 1 run(s)"), std::string::npos) << r.output;
  auto line = ParseCaffeLogLine("Iteration 99999999999, loss = 1");
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(line->iteration, 99999999999.0);
}

TEST(PlotInputs, ValuesThatRoundingCannotTellApartNeverHang) {
  TempDir dir;
  // The tick loop of old never advanced here: 1e17 + a step of 5 is 1e17.
  const std::string close_losses =
      "{\"event\":\"train\",\"iter\":1,\"loss\":1e17,\"wall_time\":1}\n"
      "{\"event\":\"train\",\"iter\":2,\"loss\":1.0000000000000002e17,\"wall_time\":2}\n";
  const std::string close_iterations =
      "{\"event\":\"train\",\"iter\":1e17,\"loss\":1,\"wall_time\":1e17}\n"
      "{\"event\":\"train\",\"iter\":1.0000000000000002e17,\"loss\":2,\"wall_time\":"
      "1.0000000000000002e17}\n";
  const std::string extremes =
      "{\"event\":\"train\",\"iter\":-1.7e308,\"loss\":1.7e308,\"wall_time\":1}\n"
      "{\"event\":\"train\",\"iter\":1.7e308,\"loss\":-1.7e308,\"wall_time\":2}\n"
      "{\"event\":\"train\",\"iter\":3,\"loss\":4.9e-324,\"wall_time\":3}\n";
  for (const std::string& metrics : {close_losses, close_iterations, extremes}) {
    for (const char* x : {"--x=iterations", "--x=seconds"}) {
      std::filesystem::remove(dir.Path("c.png"));
      const testing::CommandResult r = Plot(dir, "m.jsonl", metrics, x);
      EXPECT_EQ(r.exit_code, 0) << metrics << x << "\n" << r.output;
      EXPECT_TRUE(std::filesystem::exists(dir.Path("c.png")));
    }
  }
  // The axis: finite, a few ticks, labels that tell them apart.
  const ChartAxis axis = ChooseAxis(1e17, 1.0000000000000002e17);
  EXPECT_GT(axis.high, axis.low);
  EXPECT_LE(axis.ticks, kMaxTicks);
  EXPECT_NE(axis.Label(0), axis.Label(1));
  // plot_inputs' finding in its first 5 minutes: a value below 1e-300 counted as 0 for the axis
  // but not for its place on it, so it was drawn past the axis's end.
  FuzzAxis(-7.737143336907276e-298, 5.090621876742561e-302);
}

TEST(PlotInputs, OddBytesAndTooManyCurvesGiveAPictureOrAClearError) {
  TempDir dir;
  // Names with control and non-UTF-8 bytes are drawn escaped (cairo refuses broken UTF-8).
  const testing::CommandResult odd = Plot(dir, "run.log",
                                          "Iteration 1, Testing net (#0)\n"
                                          "Test net output #0: acc\xff\x01ur = 0.5\n"
                                          "Iteration 1, loss = 2\n");
  EXPECT_EQ(odd.exit_code, 0) << odd.output;
  std::string many = "Iteration 1, Testing net (#0)\n";
  for (int i = 0; i < 40; ++i) many += "Test net output #0: s" + std::to_string(i) + " = 1\n";
  const testing::CommandResult r = Plot(dir, "many.log", many);
  EXPECT_REFUSED_WITH(r, "the runs hold 40 different curves; one picture draws at most 32");
  std::string random;
  std::mt19937 rng(43);
  for (int i = 0; i < 100000; ++i) random += static_cast<char>(rng());
  EXPECT_REFUSED_WITH(Plot(dir, "random.log", random), "no training loss or test score in it");
}

TEST(PlotInputsFuzzTest, RandomAndMutatedInputKeepTheInvariants) {
  const std::string valid[] = {
      "I1203 23:59:58.000000  4711 solver.cc:218] Iteration 100 (12.5 iter/s, 8s/100 iters), "
      "loss = 0.8\nI1203 23:59:59.500000  4711 solver.cc:330] Iteration 200, Testing net (#0)\n"
      "I1203 23:59:59.900000  4711 solver.cc:397]     Test net output #0: accuracy = 0.75\n"
      "I1204 00:00:01.000000  4711 solver.cc:218] Iteration 200, loss = 0.4\n",
      "{\"event\":\"test\",\"iter\":0,\"net\":0,\"scores\":{\"accuracy\":0.1},\"wall_time\":1000.0}"
      "\n"
      "{\"event\":\"train\",\"iter\":100,\"loss\":0.9,\"wall_time\":1002.5}\n"};
  std::mt19937 rng(43);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(1, static_cast<char>(rng() % 3));
    if (i % 7 == 0) {
      for (int n = rng() % 64; n > 0; --n) bytes += static_cast<char>(rng());
    } else {
      std::string file = valid[i % 2];
      for (int flips = 1 + rng() % 4; flips > 0; --flips) {
        file[rng() % file.size()] = "0123456789e.-+(#, \n{}\xff"[rng() % 23];
      }
      if (rng() % 3 == 0) file.resize(rng() % file.size());
      bytes += file;
    }
    FuzzPlotInputs(bytes);
  }
}

}  // namespace
}  // namespace dtrain
