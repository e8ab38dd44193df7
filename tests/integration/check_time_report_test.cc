// What `dtrain check` and `dtrain time` report about a net beyond its shapes: learnable
// parameters apart from BatchNorm's statistics, and a deploy net's backward being skipped.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

// conv: 4 x 3 x 3 x 3 weights = 108, no bias; bn: mean 4, variance 4, factor 1 = 9 statistics;
// scale: 4 scales + 4 biases = 8. So 116 learnable parameters and 9 statistics.
const char kResidualStyleNet[] =
    "input: 'data' input_shape { dim: 2 dim: 3 dim: 8 dim: 8 }\n"
    "layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'c'\n"
    "  convolution_param { num_output: 4 kernel_size: 3 bias_term: false } }\n"
    "layer { name: 'bn' type: 'BatchNorm' bottom: 'c' top: 'c' }\n"
    "layer { name: 'scale' type: 'Scale' bottom: 'c' top: 'c' scale_param { bias_term: true } }\n"
    "layer { name: 'relu' type: 'ReLU' bottom: 'c' top: 'c' }\n";

bool Matches(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern));
}

TEST(CheckReport, LearnableParametersAndBatchNormStatisticsAreCountedApart) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), kResidualStyleNet);
  auto r = RunDtrain("check --model=" + dir.Path("net.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Matches(r.output, R"(layer\s+type\s+top shape\s+params\s+stats\s+MFLOP)"))
      << r.output;
  EXPECT_TRUE(Matches(r.output, R"(conv\s+Convolution\s+2 4 6 6 \(288\)\s+108\s+0\s)")) << r.output;
  EXPECT_TRUE(Matches(r.output, R"(bn\s+BatchNorm\s+2 4 6 6 \(288\)\s+0\s+9\s)")) << r.output;
  EXPECT_TRUE(Matches(r.output, R"(scale\s+Scale\s+2 4 6 6 \(288\)\s+8\s+0\s)")) << r.output;
  EXPECT_TRUE(Matches(r.output, R"(\ntotal\s+116\s+9\s)")) << r.output;
}

TEST(CheckReport, ASharedParameterCountsOnceInTheTotal) {
  testing::TempDir dir;
  WriteTextFile(
      dir.Path("net.prototxt"),
      "input: 'data' input_shape { dim: 2 dim: 5 }\n"
      "layer { name: 'a' type: 'InnerProduct' bottom: 'data' top: 'a' param { name: 'w' }\n"
      "  inner_product_param { num_output: 5 bias_term: false } }\n"
      "layer { name: 'b' type: 'InnerProduct' bottom: 'a' top: 'b' param { name: 'w' }\n"
      "  inner_product_param { num_output: 5 bias_term: false } }\n");
  auto r = RunDtrain("check --model=" + dir.Path("net.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Matches(r.output, R"(\na\s+InnerProduct\s+2 5 \(10\)\s+25\s+0\s)")) << r.output;
  EXPECT_TRUE(Matches(r.output, R"(\nb\s+InnerProduct\s+2 5 \(10\)\s+25\s+0\s)")) << r.output;
  EXPECT_TRUE(Matches(r.output, R"(\ntotal\s+25\s+0\s)")) << r.output;
}

const char kSkipped[] =
    "No layer needs backward (the net has no loss and does not set force_backward: true): "
    "backward is skipped and only forward is timed; add force_backward: true to the net to time "
    "backward too";

TEST(TimeReport, ADeployNetSaysBackwardIsSkipped) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("deploy.prototxt"), kResidualStyleNet);
  auto r = RunDtrain("time --iterations=1 --model=" + dir.Path("deploy.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(kSkipped), std::string::npos) << r.output;

  WriteTextFile(dir.Path("forced.prototxt"),
                std::string("force_backward: true\n") + kResidualStyleNet);
  r = RunDtrain("time --iterations=1 --model=" + dir.Path("forced.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("No layer needs backward"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtrain
