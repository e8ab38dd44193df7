// LARS in both trust_ratio_form values and LAMB in both, over several iterations of a net with the
// blobs a real one has (convolution weights, BatchNorm's statistics, Scale's gamma and beta,
// convolution and InnerProduct weights and biases, with several lr_mult and decay_mult), against
// the float64 NumPy oracle tests/tools/trust_ratio_oracle.py fed the gradients dtrain computed; the
// refusals of settings these rules cannot mean; and a NaN gradient under LAMB.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "solver/solver.h"
#include "solver/solver_param_checks.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

const std::string kPython = "/usr/bin/python3";
const std::string kOracle = std::string(DTRAIN_SOURCE_DIR) + "/tests/tools/trust_ratio_oracle.py";

// conv (lr_mult 1, decay_mult 2; no bias, as before a BatchNorm), BatchNorm (frozen statistics),
// Scale with bias (the defaults), conv2 (1, 1; bias 2, 0), fc (0.5, 1; bias 2, 0). 1-D blobs:
// BatchNorm's three, Scale's two, the biases of conv2 and fc.
constexpr char kNet[] = R"(
  layer { name: "data" type: "DummyData" top: "data" top: "label"
          dummy_data_param { shape { dim: 4 dim: 3 dim: 9 dim: 9 } shape { dim: 4 }
            data_filler { type: "gaussian" std: 1 } data_filler { type: "uniform" min: 0 max: 4.99 } } }
  layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
          param { lr_mult: 1 decay_mult: 2 }
          convolution_param { num_output: 8 kernel_size: 3 stride: 2 bias_term: false
            weight_filler { type: "msra" } } }
  layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv"
          param { lr_mult: 0 } param { lr_mult: 0 } param { lr_mult: 0 } }
  layer { name: "scale" type: "Scale" bottom: "conv" top: "conv" scale_param { bias_term: true } }
  layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
  layer { name: "conv2" type: "Convolution" bottom: "conv" top: "conv2"
          param { lr_mult: 1 decay_mult: 1 } param { lr_mult: 2 decay_mult: 0 }
          convolution_param { num_output: 6 kernel_size: 2
            weight_filler { type: "msra" } bias_filler { type: "constant" value: 0.1 } } }
  layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }
  layer { name: "fc" type: "InnerProduct" bottom: "conv2" top: "fc"
          param { lr_mult: 0.5 decay_mult: 1 } param { lr_mult: 2 decay_mult: 0 }
          inner_product_param { num_output: 5 weight_filler { type: "xavier" }
                                bias_filler { type: "constant" value: 0.2 } } }
  layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label" top: "loss" }
)";

struct Rule {
  std::string type, form;
  float base_lr, momentum, momentum2, delta, weight_decay, local_gw_ratio, clip;
};

std::string SolverText(const Rule& r) {
  std::ostringstream s;
  s << "type: '" << r.type << "' trust_ratio_form: " << r.form << " base_lr: " << r.base_lr
    << " lr_policy: 'step' gamma: 0.5 stepsize: 3 momentum: " << r.momentum
    << " weight_decay: " << r.weight_decay << " clip_gradients: " << r.clip
    << " max_iter: 100 display: 0 random_seed: 7 ";
  if (r.type == "SGD") s << "local_lr_auto: true local_gw_ratio: " << r.local_gw_ratio;
  if (r.type == "LAMB") s << "momentum2: " << r.momentum2 << " delta: " << r.delta;
  return s.str();
}

bool HaveNumpy() { return testing::RunShell(kPython + " -c 'import numpy' 2>&1").exit_code == 0; }

void AppendFloats(std::ofstream& out, const std::vector<float>& v) {
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
}

// Trains `iters` iterations of kNet under `rule`, then compares every update with the oracle's.
void CheckAgainstOracle(const Rule& rule, int iters) {
  testing::TempDir dir;
  SolverParameter param;
  ASSERT_TRUE(ParseTextProto(SolverText(rule), "solver", &param).ok()) << SolverText(rule);
  ASSERT_TRUE(ParseTextProto(kNet, "net", param.mutable_net_param()).ok());
  auto made = CreateSolver(param);
  ASSERT_TRUE(made.ok()) << made.status().message();
  Solver& solver = **made;
  const std::vector<Tensor*>& params = solver.net().learnable_params();
  // What each update saw: the weights and gradients, in the exchange's hook (after backward,
  // before the update), as a data-parallel job's exchanged gradients would be.
  std::vector<std::vector<std::vector<float>>> seen, grads;
  SolverCollectives hook;
  hook.exchange_status = [&]() {
    seen.emplace_back();
    grads.emplace_back();
    for (const Tensor* p : params) {
      seen.back().emplace_back(p->data(), p->data() + p->count());
      grads.back().emplace_back(p->diff(), p->diff() + p->count());
    }
    return Status::Ok();
  };
  solver.SetCollectives(hook);
  ASSERT_TRUE(solver.Step(iters).ok());
  ASSERT_EQ(static_cast<int>(seen.size()), iters);

  std::ostringstream config;
  config << "{\"type\": \"" << rule.type << "\", \"form\": \"" << rule.form
         << "\", \"iters\": " << iters << ", \"base_lr\": " << rule.base_lr
         << ", \"gamma\": 0.5, \"stepsize\": 3, \"momentum\": " << rule.momentum
         << ", \"momentum2\": " << rule.momentum2 << ", \"delta\": " << rule.delta
         << ", \"weight_decay\": " << rule.weight_decay
         << ", \"local_gw_ratio\": " << rule.local_gw_ratio << ", \"clip_gradients\": " << rule.clip
         << ", \"blobs\": [";
  for (size_t i = 0; i < params.size(); ++i) {
    config << (i ? ", " : "") << "{\"shape\": [";
    for (size_t a = 0; a < params[i]->shape().size(); ++a) {
      config << (a ? ", " : "") << params[i]->shape()[a];
    }
    config << "], \"lr_mult\": " << solver.net().params_lr()[i]
           << ", \"decay_mult\": " << solver.net().params_weight_decay()[i] << "}";
  }
  config << "]}";
  testing::WriteTextFile(dir.Path("config.json"), config.str());
  {
    std::ofstream in(dir.Path("in.bin"), std::ios::binary);
    for (int t = 0; t < iters; ++t) {
      for (size_t i = 0; i < params.size(); ++i) {
        AppendFloats(in, seen[t][i]);
        AppendFloats(in, grads[t][i]);
      }
    }
  }
  const auto run = testing::RunShell(kPython + " " + kOracle + " " + dir.Path("config.json") + " " +
                                     dir.Path("in.bin") + " " + dir.Path("out.bin") + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::ifstream out(dir.Path("out.bin"), std::ios::binary);
  std::vector<double> oracle;
  for (double v; out.read(reinterpret_cast<char*>(&v), sizeof v);) oracle.push_back(v);

  // dtrain's weights after update t: those the next update saw (a forward pass leaves the
  // learnable blobs as they are), and the net's after the last.
  size_t at = 0;
  int frozen = 0;
  for (int t = 0; t < iters; ++t) {
    for (size_t i = 0; i < params.size(); ++i) {
      const int64_t n = params[i]->count();
      ASSERT_LE(at + n, oracle.size());
      const float* after = t + 1 < iters ? seen[t + 1][i].data() : params[i]->data();
      const float lr_mult = solver.net().params_lr()[i];
      if (lr_mult == 0) {
        // Frozen: BatchNorm's forward pass moves its statistics, the update leaves them.
        if (t + 1 == iters) {
          ++frozen;
          for (int64_t j = 0; j < n; ++j) EXPECT_EQ(after[j], seen[t][i][j]) << "blob " << i;
        }
        at += n;
        continue;
      }
      double moved = 0, largest = 0, worst = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double expected = oracle[at + j];
        moved = std::max(moved, std::abs(expected - seen[0][i][j]));
        largest = std::max(largest, std::abs(expected));
        worst = std::max(worst, std::abs(after[j] - expected));
      }
      EXPECT_GT(moved, 1e-4 * largest) << "blob " << i << " did not move by iteration " << t;
      EXPECT_LE(worst, 1e-4 * moved + 1e-6 * largest)
          << rule.type << " " << rule.form << ": blob " << i << " (shape "
          << params[i]->ShapeString() << ") after iteration " << t << ": worst difference " << worst
          << ", moved " << moved;
      at += n;
    }
  }
  EXPECT_EQ(at, oracle.size());
  EXPECT_EQ(frozen, 3);
}

const int kIters = 7;

TEST(TrustRatio, LarsIntelFormAgainstNumpy) {
  if (!HaveNumpy()) GTEST_SKIP() << kPython << " has no numpy (Debian's python3-numpy)";
  CheckAgainstOracle({"SGD", "INTEL", 0.5f, 0.9f, 0, 0, 0.005f, 0.002f, -1}, kIters);
}

TEST(TrustRatio, LarsLayerwiseFormAgainstNumpy) {
  if (!HaveNumpy()) GTEST_SKIP() << kPython << " has no numpy (Debian's python3-numpy)";
  CheckAgainstOracle({"SGD", "LAYERWISE", 0.5f, 0.9f, 0, 0, 0.005f, 0.002f, -1}, kIters);
  // Gradient clipping first, over every blob, then the norms.
  CheckAgainstOracle({"SGD", "LAYERWISE", 0.5f, 0.9f, 0, 0, 0.005f, 0.002f, 0.05f}, kIters);
}

TEST(TrustRatio, LambIntelFormAgainstNumpy) {
  if (!HaveNumpy()) GTEST_SKIP() << kPython << " has no numpy (Debian's python3-numpy)";
  CheckAgainstOracle({"LAMB", "INTEL", 0.02f, 0.9f, 0.999f, 1e-3f, 0.01f, 0, -1}, kIters);
}

TEST(TrustRatio, LambLayerwiseFormAgainstNumpy) {
  if (!HaveNumpy()) GTEST_SKIP() << kPython << " has no numpy (Debian's python3-numpy)";
  CheckAgainstOracle({"LAMB", "LAYERWISE", 0.02f, 0.9f, 0.999f, 1e-3f, 0.01f, 0, -1}, kIters);
  CheckAgainstOracle({"LAMB", "LAYERWISE", 0.02f, 0.8f, 0.99f, 1e-6f, 0.01f, 0, 0.05f}, kIters);
}

// A NaN in one gradient element: every weight of that blob turns NaN (its |r| is NaN), and the
// divergence check stops the run naming the blob at the next display.
TEST(TrustRatio, ANanGradientUnderLambStopsTheRunNamingTheBlob) {
  SolverParameter param;
  ASSERT_TRUE(ParseTextProto("type: 'LAMB' base_lr: 0.01 lr_policy: 'fixed' momentum: 0.9 "
                             "max_iter: 10 display: 1 random_seed: 7",
                             "solver", &param)
                  .ok());
  ASSERT_TRUE(ParseTextProto(kNet, "net", param.mutable_net_param()).ok());
  auto solver = CreateSolver(param);
  ASSERT_TRUE(solver.ok()) << solver.status().message();
  Tensor* fc = (*solver)->net().learnable_params()[8];
  SolverCollectives hook;
  hook.exchange_status = [&]() {
    if ((*solver)->iter() == 1) fc->mutable_diff()[3] = std::nanf("");
    return Status::Ok();
  };
  (*solver)->SetCollectives(hook);
  const Status s = (*solver)->Step(3);
  EXPECT_NE(s.message().find("training diverged at iteration 2: "), std::string::npos)
      << s.message();
  for (int64_t j = 0; j < fc->count(); ++j) ASSERT_TRUE(std::isnan(fc->data()[j])) << j;
}

TEST(TrustRatio, SettingsTheRulesCannotMeanAreRefusedByName) {
  const struct {
    std::string fields, error;
  } cases[] = {
      {"trust_ratio_form: LAYERWISE",
       "trust_ratio_form: LAYERWISE says how LARS (local_lr_auto: true under type \"SGD\") and "
       "type \"LAMB\" apply their trust ratio; under type \"SGD\" without local_lr_auto it would "
       "change nothing: remove it"},
      {"type: 'Adam' trust_ratio_form: LAYERWISE",
       "trust_ratio_form: LAYERWISE says how LARS (local_lr_auto: true under type \"SGD\") and "
       "type \"LAMB\" apply their trust ratio; under type \"Adam\" without local_lr_auto it would "
       "change nothing: remove it"},
      {"type: 'LAMB' local_lr_auto: true",
       "local_lr_auto (LARS) is SGD's rule; type \"LAMB\" applies its own trust ratio |w| / |r| "
       "and has no local_gw_ratio: remove local_lr_auto"},
      {"type: 'LAMB' local_gw_ratio: 0.001",
       "local_gw_ratio is LARS's coefficient (local_lr_auto under SGD); LAMB's trust ratio "
       "|w| / |r| has none: remove it"},
      {"type: 'LAMB' momentum: 1", "type \"LAMB\" needs momentum (its beta1) in [0, 1), got 1"},
      {"type: 'LAMB' momentum: -0.5",
       "type \"LAMB\" needs momentum (its beta1) in [0, 1), got -0.5"},
      {"type: 'LAMB' momentum2: 1", "type \"LAMB\" needs momentum2 (its beta2) in [0, 1), got 1"},
      {"type: 'LAMB' momentum2: nan",
       "type \"LAMB\" needs momentum2 (its beta2) in [0, 1), got nan"},
      {"type: 'LAMB' delta: 0",
       "type \"LAMB\" needs delta (its epsilon) a finite number > 0, got 0"},
      {"type: 'LAMB' delta: -1e-8",
       "type \"LAMB\" needs delta (its epsilon) a finite number > 0, got -1e-08"},
      {"type: 'LAMB' weight_decay: -0.01",
       "weight_decay must be a finite number >= 0 with type \"LAMB\", got -0.01"},
      {"local_lr_auto: true weight_decay: inf",
       "weight_decay must be a finite number >= 0 with local_lr_auto (LARS), got inf"},
      {"type: 'LAMB' weight_decay: 0.01 regularization_type: 'L1'",
       "regularization_type \"L1\" with type \"LAMB\": its trust ratio and weight decay are those "
       "of L2 decay (decay x w); use regularization_type: \"L2\" (the default)"},
      {"local_lr_auto: true trust_ratio_form: LAYERWISE regularization_type: 'L1'",
       "regularization_type \"L1\" with trust_ratio_form: LAYERWISE: its trust ratio and weight "
       "decay are those of L2 decay (decay x w); use regularization_type: \"L2\" (the default)"},
  };
  for (const auto& c : cases) {
    SolverParameter param;
    ASSERT_TRUE(
        ParseTextProto("net: 'n' base_lr: 1 lr_policy: 'fixed' " + c.fields, "solver", &param).ok())
        << c.fields;
    EXPECT_EQ(ValidateSolverParameter(param).message(), c.error) << c.fields;
  }
  // Intel's form keeps accepting L1 with LARS (Intel Caffe applied it), and LAMB's defaults pass.
  for (const std::string ok : {"local_lr_auto: true regularization_type: 'L1'", "type: 'LAMB'",
                               "type: 'LAMB' trust_ratio_form: LAYERWISE momentum: 0.9"}) {
    SolverParameter param;
    ASSERT_TRUE(
        ParseTextProto("net: 'n' base_lr: 1 lr_policy: 'fixed' " + ok, "solver", &param).ok());
    EXPECT_TRUE(ValidateSolverParameter(param).ok()) << ok;
  }
}

}  // namespace
}  // namespace dtrain
