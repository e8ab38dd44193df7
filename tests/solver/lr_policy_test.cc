#include "solver/lr_policy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/proto_io.h"

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

TEST(LrPolicy, MultistepPolySigmoid) {
  const SolverParameter ms = Parse(
      "base_lr: 1 lr_policy: 'multistep' gamma: 0.1 stepvalue: 5 stepvalue: 8");
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
