#include "solver/lr_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/proto_io.h"
#include "solver/solver_param_checks.h"

namespace dtrain {
namespace {

SolverParameter Parse(const std::string& text) {
  SolverParameter p;
  Status s = ParseTextProto(text, "solver", &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

TEST(LrPolicy, FixedStepExpInv) {
  EXPECT_FLOAT_EQ(LearningRate(Parse("base_lr: 0.1 lr_policy: 'fixed'"), 1000), 0.1f);
  const SolverParameter step = Parse("base_lr: 0.1 lr_policy: 'step' gamma: 0.5 stepsize: 10");
  EXPECT_FLOAT_EQ(LearningRate(step, 9), 0.1f);
  EXPECT_FLOAT_EQ(LearningRate(step, 10), 0.05f);
  EXPECT_FLOAT_EQ(LearningRate(step, 25), 0.025f);
  EXPECT_FLOAT_EQ(LearningRate(Parse("base_lr: 2 lr_policy: 'exp' gamma: 0.9"), 2), 2 * 0.81f);
  // Caffe's LeNet schedule: 0.01 * (1 + 0.0001 * 100)^-0.75
  const SolverParameter inv = Parse("base_lr: 0.01 lr_policy: 'inv' gamma: 0.0001 power: 0.75");
  EXPECT_NEAR(LearningRate(inv, 100), 0.01 * std::pow(1.01, -0.75), 1e-9);
}

// Caffe prints the rate with 6 significant digits; these are the lines of a BVLC Caffe LeNet log
// (lenet_solver.prototxt: base_lr 0.01, inv, gamma 0.0001, power 0.75). Computing 1 + gamma * iter
// in double instead of float, as dtrain once did, prints 0.00957239 and 0.00709589.
TEST(LrPolicy, InvPrintsTheDigitsOfCaffesLenetLog) {
  const SolverParameter inv = Parse("base_lr: 0.01 lr_policy: 'inv' gamma: 0.0001 power: 0.75");
  const std::vector<std::pair<int, std::string>> caffe_log = {
      {600, "0.0095724"}, {4000, "0.0077697"}, {5800, "0.0070959"}, {8300, "0.00635567"}};
  for (const auto& [iter, printed] : caffe_log) {
    std::ostringstream out;
    out << LearningRate(inv, iter);
    EXPECT_EQ(out.str(), printed) << "iteration " << iter;
  }
}

TEST(LrPolicy, FloatArgumentsDoublePowAndExpAsCaffe) {
  // Caffe: float fields and arguments, C's double pow/exp, the product rounded to a float.
  const SolverParameter poly = Parse("base_lr: 0.1 lr_policy: 'poly' power: 0.9 max_iter: 10000");
  const float left = 1.f - 730.f / 10000.f;
  EXPECT_EQ(LearningRate(poly, 730), static_cast<float>(0.1f * std::pow(double{left}, 0.9f)));
  const SolverParameter sig = Parse("base_lr: 1 lr_policy: 'sigmoid' gamma: 0.001 stepsize: 5000");
  const float x = -0.001f * (230.f - 5000.f);
  EXPECT_EQ(LearningRate(sig, 230), static_cast<float>(1.0 / (1.0 + std::exp(double{x}))));
}

TEST(LrPolicy, MultistepPolySigmoid) {
  const SolverParameter ms =
      Parse("base_lr: 1 lr_policy: 'multistep' gamma: 0.1 stepvalue: 5 stepvalue: 8");
  EXPECT_FLOAT_EQ(LearningRate(ms, 4), 1.f);
  EXPECT_FLOAT_EQ(LearningRate(ms, 5), 0.1f);
  EXPECT_FLOAT_EQ(LearningRate(ms, 8), 0.01f);
  const SolverParameter poly = Parse("base_lr: 1 lr_policy: 'poly' power: 2 max_iter: 10");
  EXPECT_FLOAT_EQ(LearningRate(poly, 5), 0.25f);
  const SolverParameter sig = Parse("base_lr: 1 lr_policy: 'sigmoid' gamma: 1 stepsize: 3");
  EXPECT_FLOAT_EQ(LearningRate(sig, 3), 0.5f);
}

TEST(LrPolicy, WarmupRampsLinearly) {
  const SolverParameter p =
      Parse("base_lr: 1 lr_policy: 'fixed' warmup_iter: 4 warmup_start_lr: 0.2");
  EXPECT_FLOAT_EQ(LearningRate(p, 0), 0.2f);
  EXPECT_FLOAT_EQ(LearningRate(p, 2), 0.6f);
  EXPECT_FLOAT_EQ(LearningRate(p, 4), 1.f);
}

TEST(SolverParameterChecks, UnknownRegularizationTypeIsAnError) {
  // Caffe stops at the first update; accepting it would silently train without weight decay.
  Status s = ValidateSolverParameter(
      Parse("net: 'n' base_lr: 1 lr_policy: 'fixed' regularization_type: 'l2'"));
  EXPECT_EQ(s.message(), "unknown regularization_type \"l2\"; supported: L2 (the default), L1");
  EXPECT_TRUE(ValidateSolverParameter(
                  Parse("net: 'n' base_lr: 1 lr_policy: 'fixed' regularization_type: 'L1'"))
                  .ok());
  EXPECT_TRUE(ValidateSolverParameter(Parse("net: 'n' base_lr: 1 lr_policy: 'fixed'")).ok());
}

TEST(SolverParameterChecks, TheSsdForksEvaluationFieldsAreCheckedBeforeTraining) {
  EXPECT_TRUE(ValidateSolverParameter(Parse("net: 'n' base_lr: 1 lr_policy: 'fixed' eval_type: "
                                            "'detection' ap_version: '11point' "
                                            "show_per_class_result: true"))
                  .ok());
  EXPECT_EQ(ValidateSolverParameter(
                Parse("net: 'n' base_lr: 1 lr_policy: 'fixed' eval_type: 'segmentation'"))
                .message(),
            "eval_type \"segmentation\" is not \"classification\" or \"detection\"");
  EXPECT_EQ(ValidateSolverParameter(
                Parse("net: 'n' base_lr: 1 lr_policy: 'fixed' ap_version: '11-point'"))
                .message(),
            "unknown ap_version \"11-point\" (known: \"11point\", \"MaxIntegral\", \"Integral\")");
}

TEST(LrPolicy, ValidationNamesTheProblem) {
  Status s = ValidateLrPolicy(Parse("base_lr: 1 lr_policy: 'cosine'"));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown lr_policy \"cosine\""), std::string::npos);
  EXPECT_NE(s.message().find("multistep"), std::string::npos);
  s = ValidateLrPolicy(Parse("base_lr: 1 lr_policy: 'step'"));
  EXPECT_NE(s.message().find("stepsize"), std::string::npos);
}

}  // namespace
}  // namespace dtrain
