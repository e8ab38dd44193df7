// Each update rule against the same steps computed by hand (in double) on a one-weight net:
// y = w * x with x = 2, Euclidean loss against t = 1, so dL/dw = (w*x - t) * x.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/proto_io.h"
#include "solver/solver.h"
#include "testing/tiny_solver.h"

namespace dtrain {
namespace {

// Runs `iters` iterations of the solver described by `solver_text` and returns the weight.
float TrainedWeight(const std::string& solver_text, int iters) {
  SolverParameter param;
  Status s =
      ParseTextProto(solver_text + " max_iter: 100 display: 0 random_seed: 1", "solver", &param);
  EXPECT_TRUE(s.ok()) << s.message();
  s = ParseTextProto(testing::kOneWeightNet, "net", param.mutable_net_param());
  EXPECT_TRUE(s.ok()) << s.message();
  auto solver = CreateSolver(param);
  EXPECT_TRUE(solver.ok()) << solver.status().message();
  EXPECT_TRUE((*solver)->Step(iters).ok());
  return (*solver)->net().learnable_params()[0]->data()[0];
}

double Grad(double w) { return (w * 2 - 1) * 2; }

TEST(UpdateRules, SgdWithMomentumAndL2Decay) {
  double w = 1, h = 0;
  const double lr = 0.1, mom = 0.9, wd = 0.01;
  for (int i = 0; i < 3; ++i) {
    const double g = Grad(w) + wd * w;
    h = lr * g + mom * h;
    w -= h;
  }
  EXPECT_NEAR(TrainedWeight("type: 'SGD' base_lr: 0.1 momentum: 0.9 weight_decay: 0.01 "
                            "lr_policy: 'fixed'",
                            3),
              w, 1e-6);
}

TEST(UpdateRules, SgdL1Decay) {
  double w = 1;
  for (int i = 0; i < 2; ++i) w -= 0.1 * (Grad(w) + 0.05 * (w > 0 ? 1 : -1));
  EXPECT_NEAR(TrainedWeight("base_lr: 0.1 weight_decay: 0.05 regularization_type: 'L1' "
                            "lr_policy: 'fixed'",
                            2),
              w, 1e-6);
}

TEST(UpdateRules, Nesterov) {
  double w = 1, h = 0;
  for (int i = 0; i < 3; ++i) {
    const double prev = h;
    h = 0.9 * h + 0.1 * Grad(w);
    w -= (1 + 0.9) * h - 0.9 * prev;
  }
  EXPECT_NEAR(TrainedWeight("type: 'Nesterov' base_lr: 0.1 momentum: 0.9 lr_policy: 'fixed'", 3), w,
              1e-6);
}

TEST(UpdateRules, AdaGrad) {
  double w = 1, h = 0;
  for (int i = 0; i < 3; ++i) {
    const double g = Grad(w);
    h += g * g;
    w -= 0.1 * g / (std::sqrt(h) + 1e-8);
  }
  EXPECT_NEAR(TrainedWeight("type: 'AdaGrad' base_lr: 0.1 lr_policy: 'fixed'", 3), w, 1e-6);
}

TEST(UpdateRules, RmsProp) {
  double w = 1, h = 0;
  for (int i = 0; i < 3; ++i) {
    const double g = Grad(w);
    h = 0.98 * h + 0.02 * g * g;
    w -= 0.01 * g / (std::sqrt(h) + 1e-8);
  }
  EXPECT_NEAR(TrainedWeight("type: 'RMSProp' base_lr: 0.01 rms_decay: 0.98 lr_policy: 'fixed'", 3),
              w, 1e-5);
}

TEST(UpdateRules, AdaDelta) {
  double w = 1, h = 0, u = 0;
  const double mom = 0.95, delta = 1e-6;
  for (int i = 0; i < 3; ++i) {
    double g = Grad(w);
    h = mom * h + (1 - mom) * g * g;
    g = g * std::sqrt(u + delta) / std::sqrt(h + delta);
    u = mom * u + (1 - mom) * g * g;
    w -= 1.0 * g;
  }
  EXPECT_NEAR(TrainedWeight("type: 'AdaDelta' base_lr: 1 momentum: 0.95 delta: 1e-6 "
                            "lr_policy: 'fixed'",
                            3),
              w, 1e-6);
}

TEST(UpdateRules, Adam) {
  double w = 1, m = 0, v = 0;
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = 0.01;
  for (int t = 1; t <= 3; ++t) {
    const double g = Grad(w);
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * g * g;
    w -= lr * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t)) * m / (std::sqrt(v) + eps);
  }
  EXPECT_NEAR(TrainedWeight("type: 'Adam' base_lr: 0.01 momentum: 0.9 momentum2: 0.999 "
                            "lr_policy: 'fixed'",
                            3),
              w, 1e-6);
}

TEST(UpdateRules, ClipGradientsAndIterSize) {
  // clip_gradients caps the global L2 norm: first gradient is 2, clipped to 0.5.
  double w = 1;
  double g = Grad(w);
  w -= 0.1 * g * std::min(1.0, 0.5 / std::fabs(g));
  EXPECT_NEAR(TrainedWeight("base_lr: 0.1 clip_gradients: 0.5 lr_policy: 'fixed'", 1), w, 1e-6);
  // iter_size 2 averages two identical passes: same step as one.
  EXPECT_NEAR(TrainedWeight("base_lr: 0.1 iter_size: 2 lr_policy: 'fixed'", 2),
              TrainedWeight("base_lr: 0.1 lr_policy: 'fixed'", 2), 1e-7);
}

TEST(UpdateRules, UnknownTypeIsAnError) {
  SolverParameter param;
  ASSERT_TRUE(ParseTextProto("type: 'LBFGS' base_lr: 1", "solver", &param).ok());
  ASSERT_TRUE(ParseTextProto(testing::kOneWeightNet, "net", param.mutable_net_param()).ok());
  auto solver = CreateSolver(param);
  ASSERT_FALSE(solver.ok());
  EXPECT_NE(solver.status().message().find("unknown solver type \"LBFGS\""), std::string::npos);
}

}  // namespace
}  // namespace dtrain
