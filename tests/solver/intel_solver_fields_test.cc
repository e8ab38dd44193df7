// Intel Caffe's solver fields, each against its own formula computed here in double: the warmup
// that ends at base_lr and overrides the policy, with SGD's momentum correction; LARS
// (local_lr_auto, local_gw_ratio) on a net of convolution, BatchNorm, Scale and InnerProduct
// blobs; test_offset; the multifixed and plateau policies (plateau's state through a snapshot);
// disabled_update; and the refusals of what Intel Caffe never applied.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/proto_io.h"
#include "solver/lr_policy.h"
#include "solver/solver.h"
#include "solver/solver_param_checks.h"
#include "testing/files.h"
#include "testing/tiny_solver.h"

namespace dtrain {
namespace {

SolverParameter Parse(const std::string& text) {
  SolverParameter p;
  const Status s = ParseTextProto(text, "solver", &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

// googlenet_v3_32nodes_2k_batch's schedule: a warmup of 3125 iterations from 0.05 to 0.6, then
// poly. At 3124 Intel Caffe's rate is 0.59982, not the 0.541 of a ramp to the poly rate.
TEST(IntelSolverFields, WarmupEndsAtBaseLrAndOverridesThePolicy) {
  const SolverParameter p = Parse(
      "base_lr: 0.6 lr_policy: 'poly' power: 2 max_iter: 62500 warmup_iter: 3125 "
      "warmup_start_lr: 0.05");
  for (int iter : {0, 1, 1000, 3124}) {
    const float intel =
        (static_cast<float>(iter) * 0.6f + static_cast<float>(3125 - iter) * 0.05f) / 3125.f;
    EXPECT_EQ(LearningRate(p, iter), intel) << iter;
  }
  EXPECT_NEAR(LearningRate(p, 3124), 0.59982, 1e-5);
  EXPECT_NEAR(LearningRate(p, 3125), 0.6 * std::pow(1 - 3125.0 / 62500, 2), 1e-7);
  EXPECT_FALSE(InWarmup(p, 3125));
  EXPECT_EQ(WarmupRate(p, -1), WarmupRate(p, 0));  // Intel clamps the iteration at 0
}

std::unique_ptr<Solver> OneWeightSolver(const std::string& fields) {
  SolverParameter param = Parse(fields + " max_iter: 100 display: 0 random_seed: 1");
  EXPECT_TRUE(ParseTextProto(testing::kOneWeightNet, "net", param.mutable_net_param()).ok());
  auto solver = CreateSolver(param);
  EXPECT_TRUE(solver.ok()) << solver.status().message();
  return solver.ok() ? std::move(*solver) : nullptr;
}

// Intel Caffe's sequence: rate_t from the ramp, momentum_t = momentum * rate_t / rate_{t-1}
// (rate_{-1} = rate_0), h = rate_t * g + momentum_t * h, w -= h.
TEST(IntelSolverFields, WarmupScalesSgdMomentumByTheRateRatio) {
  for (const double start : {0.02, 0.0}) {
    const double base = 0.1, momentum = 0.9;
    const int warmup = 6;
    auto ramp = [&](int t) {
      return (std::max(t, 0) * base + (warmup - std::max(t, 0)) * start) / warmup;
    };
    double w = 1, h = 0;
    for (int t = 0; t < 9; ++t) {
      const double g = (w * 2 - 1) * 2;
      const double rate = t < warmup ? ramp(t) : base;
      // From 0, Intel Caffe divides by 0 (NaN weights); the momentum then stays as it is.
      const double m = t < warmup && ramp(t - 1) > 0 ? momentum * rate / ramp(t - 1) : momentum;
      h = rate * g + m * h;
      w -= h;
    }
    auto solver = OneWeightSolver(
        "base_lr: 0.1 momentum: 0.9 lr_policy: 'fixed' warmup_iter: 6 "
        "warmup_start_lr: " +
        std::to_string(start));
    ASSERT_TRUE(solver->Step(9).ok());
    EXPECT_NEAR(solver->net().learnable_params()[0]->data()[0], w, 1e-6) << "from " << start;
  }
}

// A net with the blobs LARS meets in a real one: convolution weights and bias, BatchNorm's
// statistics (lr_mult 0), Scale's gamma and beta, InnerProduct weights and bias.
std::string LarsSolverText(const std::string& fields) {
  return "base_lr: 0.5 lr_policy: 'fixed' momentum: 0.9 weight_decay: 0.0005 display: 0 "
         "max_iter: 10 random_seed: 7 " +
         fields +
         R"( net_param {
    layer { name: "data" type: "DummyData" top: "data" top: "label"
            dummy_data_param { shape { dim: 4 dim: 3 dim: 9 dim: 9 } shape { dim: 4 }
              data_filler { type: "gaussian" std: 1 } data_filler { type: "constant" value: 2 } } }
    layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
            convolution_param { num_output: 8 kernel_size: 3 stride: 2
              weight_filler { type: "msra" } bias_filler { type: "constant" value: 0.1 } } }
    layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv"
            param { lr_mult: 0 } param { lr_mult: 0 } param { lr_mult: 0 } }
    layer { name: "scale" type: "Scale" bottom: "conv" top: "conv"
            scale_param { bias_term: true } }
    layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
    layer { name: "fc" type: "InnerProduct" bottom: "conv" top: "fc"
            param { lr_mult: 1 } param { lr_mult: 2 decay_mult: 0 }
            inner_product_param { num_output: 5 weight_filler { type: "xavier" }
                                  bias_filler { type: "constant" value: 0.2 } } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label" top: "loss" }
  })";
}

// One SGD step with LARS against the same step computed in double from the same weights and
// gradients (a second solver of the same seed gives them).
TEST(IntelSolverFields, LarsAsIntelCaffeComputesIt) {
  const SolverParameter param = Parse(LarsSolverText("local_lr_auto: true local_gw_ratio: 0.002"));
  auto probe = CreateSolver(param);
  auto trained = CreateSolver(param);
  ASSERT_TRUE(probe.ok() && trained.ok());
  Net& net = (*probe)->net();
  ASSERT_TRUE(net.Forward().ok());
  net.Backward();
  ASSERT_TRUE((*trained)->Step(1).ok());
  const auto& params = net.learnable_params();
  ASSERT_EQ(params.size(), 9u);  // conv 2, bn 3, scale 2, fc 2
  int frozen = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = *params[i];
    double w_sumsq = 0, g_sumsq = 0;
    for (int64_t j = 0; j < p.count(); ++j) {
      w_sumsq += double(p.data()[j]) * p.data()[j];
      g_sumsq += double(p.diff()[j]) * p.diff()[j];
    }
    const double wn = std::sqrt(w_sumsq), gn = std::sqrt(g_sumsq);
    const double lr_mult = net.params_lr()[i];
    // The trust ratio replaces lr_mult (which only gates); weight_decay is the solver's.
    double local = lr_mult;
    if (lr_mult > 0) local = wn > 0 && gn > 0 ? 0.002 * wn / (gn + 0.0005 * wn) : 1;
    const double decay = 0.0005 * net.params_weight_decay()[i];
    const Tensor& after = *(*trained)->net().learnable_params()[i];
    double worst = 0;
    for (int64_t j = 0; j < p.count(); ++j) {
      const double step = 0.5 * local * (p.diff()[j] + decay * p.data()[j]);
      const double expected = p.data()[j] - step;
      worst = std::max(worst, std::abs(after.data()[j] - expected) /
                                  std::max(1e-6, std::abs(step) + 1e-3 * std::abs(expected)));
    }
    EXPECT_LT(worst, 1e-3) << "blob " << i << " (lr_mult " << lr_mult << ", trust ratio " << local
                           << ")";
    if (lr_mult == 0) {
      ++frozen;
      for (int64_t j = 0; j < p.count(); ++j) EXPECT_EQ(after.data()[j], p.data()[j]);
    }
  }
  EXPECT_EQ(frozen, 3);  // BatchNorm's statistics stay as they were
}

TEST(IntelSolverFields, TestOffsetShiftsTheTestPasses) {
  SolverParameter param = testing::TinySolver(
      "max_iter: 9 test_iter: 1 test_interval: 4 "
      "test_offset: 2 test_initialization: true snapshot_after_train: false");
  auto solver = CreateSolver(param);
  ASSERT_TRUE(solver.ok()) << solver.status().message();
  std::vector<int> tested;
  (*solver)->AddTestObserver([&](const TestReport& r) { tested.push_back(r.iter); });
  ASSERT_TRUE((*solver)->Solve().ok());
  EXPECT_EQ(tested, (std::vector<int>{2, 6}));
}

TEST(IntelSolverFields, MultifixedTakesTheStageOfTheIteration) {
  const SolverParameter p = Parse(
      "base_lr: 9 lr_policy: 'multifixed' stagelr: 0.1 stagelr: 0.01 stagelr: 0.001 "
      "stageiter: 10 stageiter: 20 stageiter: 30");
  EXPECT_FLOAT_EQ(LearningRate(p, 0), 0.1f);
  EXPECT_FLOAT_EQ(LearningRate(p, 10), 0.1f);  // up to and including stageiter
  EXPECT_FLOAT_EQ(LearningRate(p, 11), 0.01f);
  EXPECT_FLOAT_EQ(LearningRate(p, 30), 0.001f);
  EXPECT_FLOAT_EQ(LearningRate(p, 1000), 0.001f);  // past the last: the last
}

// With the weights never updated (disabled_update) the loss stays where it is: the plateau
// policy steps after plateau_winsize[k] iterations without a new minimum, and a run resumed from
// a snapshot in between steps at the same iterations as one that was not.
TEST(IntelSolverFields, PlateauStepsWithoutANewMinimumAndResumesExactly) {
  testing::TempDir dir;
  SolverParameter param = Parse(
      "base_lr: 0.1 lr_policy: 'plateau' gamma: 0.5 plateau_winsize: 3 plateau_winsize: 5 "
      "display: 1 disabled_update: true max_iter: 12 random_seed: 1 snapshot_prefix: '" +
      dir.Path("plateau") + "'");
  ASSERT_TRUE(ParseTextProto(testing::kOneWeightNet, "net", param.mutable_net_param()).ok());
  auto rates_of = [](Solver& solver, int from, int to) {
    std::vector<float> rates;
    solver.AddDisplayObserver([&](const IterationReport& r) { rates.push_back(r.learning_rate); });
    EXPECT_TRUE(solver.Step(to - from).ok());
    return rates;
  };
  auto whole = CreateSolver(param);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const std::vector<float> rates = rates_of(**whole, 0, 12);
  // The minimum at 0; steps at 3 (0 + 3) and 8 (3 + 5); the rate shown is before the step.
  EXPECT_EQ(rates, (std::vector<float>{0.1f, 0.1f, 0.1f, 0.1f, 0.05f, 0.05f, 0.05f, 0.05f, 0.05f,
                                       0.025f, 0.025f, 0.025f}));
  auto first = CreateSolver(param);
  ASSERT_TRUE((*first)->Step(5).ok());
  ASSERT_TRUE((*first)->Snapshot().ok());
  auto resumed = CreateSolver(param);
  ASSERT_TRUE((*resumed)->Restore(dir.Path("plateau_iter_5.solverstate")).ok());
  const std::vector<float> rest = rates_of(**resumed, 5, 12);
  EXPECT_EQ(rest, std::vector<float>(rates.begin() + 5, rates.end()));
  // A plateau state out of range is refused before anything is restored.
  SolverState bad;
  bad.set_iter(5);
  bad.set_current_step(3);
  auto refused = CreateSolver(param);
  EXPECT_EQ((*refused)->Restore(bad, nullptr, "p.solverstate").message(),
            "p.solverstate: current_step is 3; this solver has 2 plateau_winsize entries, so it "
            "must be in [0, 2] (damaged file, or another solver's?)");
  bad.set_current_step(1);
  bad.set_iter_last_event(9);
  EXPECT_EQ((*refused)->Restore(bad, nullptr, "p.solverstate").message(),
            "p.solverstate: minimum_loss 1e+38 or iter_last_event 9 is out of range: the last "
            "event is at or before the snapshot's iteration (damaged file?)");
  // And the weights never moved.
  EXPECT_EQ((*whole)->net().learnable_params()[0]->data()[0],
            (*first)->net().learnable_params()[0]->data()[0]);
}

// A Caffe solverstate of the step policy holds current_step = iter / stepsize: it resumes.
TEST(IntelSolverFields, CaffesStepPolicyStateResumes) {
  SolverParameter param = testing::TinySolver("stepsize: 2 gamma: 0.5 max_iter: 10");
  param.set_lr_policy("step");
  auto solver = CreateSolver(param);
  ASSERT_TRUE((*solver)->Step(6).ok());
  SolverState state;
  state.set_iter(6);
  state.set_current_step(3);  // as Caffe writes it
  for (int i = 0; i < 2; ++i) {
    (*solver)->net().learnable_params()[i]->ToProto(state.add_history(), false);
  }
  auto resumed = CreateSolver(param);
  const Status restored = (*resumed)->Restore(state, nullptr, "caffe.solverstate");
  EXPECT_TRUE(restored.ok()) << restored.message();
}

TEST(IntelSolverFields, WhatIntelCaffeNeverAppliedIsRefusedByName) {
  const std::string net = "net: 'n' ";
  const struct {
    std::string fields, error;
  } cases[] = {
      {"type: 'Adam' base_lr: 1 lr_policy: 'fixed' local_lr_auto: true",
       "local_lr_auto (LARS) is part of SGD's update in Intel Caffe; under type \"Adam\" it never "
       "applied"},
      {"base_lr: 1 lr_policy: 'fixed' local_lr_auto: true local_gw_ratio: 0",
       "local_gw_ratio must be a finite number > 0 with local_lr_auto, got 0"},
      {"base_lr: 1 lr_policy: 'multifixed' stagelr: 0.1 stageiter: 5 stageiter: 9",
       "lr_policy \"multifixed\" needs as many stageiter as stagelr entries (at least one), got 2 "
       "and 1"},
      {"base_lr: 1 lr_policy: 'plateau' plateau_winsize: 0",
       "lr_policy \"plateau\" needs positive plateau_winsize entries, got 0"},
      {"base_lr: 1 lr_policy: 'fixed' warmup_iter: -3", "warmup_iter must not be negative, got -3"},
      {"base_lr: 1 lr_policy: 'fixed' warmup_iter: 3 warmup_start_lr: -1",
       "warmup_start_lr must be a finite rate >= 0"},
  };
  for (const auto& c : cases) {
    const Status s = ValidateSolverParameter(Parse(net + c.fields));
    EXPECT_NE(s.message().find(c.error), std::string::npos) << c.fields << "\n" << s.message();
  }
}

}  // namespace
}  // namespace dtrain
