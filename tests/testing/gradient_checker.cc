#include "testing/gradient_checker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/rng.h"

namespace dtrain::testing {
namespace {

double Objective(Layer& layer, const TensorVec& bottom, const TensorVec& top,
                 const std::vector<std::vector<float>>& weights) {
  Status s = layer.Forward(bottom, top, nullptr);
  EXPECT_TRUE(s.ok()) << s.message();
  double sum = 0;
  for (size_t k = 0; k < top.size(); ++k) {
    const float* d = top[k]->data();
    for (int64_t j = 0; j < top[k]->count(); ++j) sum += static_cast<double>(weights[k][j]) * d[j];
  }
  return sum;
}

}  // namespace

void FillGaussian(Tensor* tensor, uint64_t seed, float stddev, float mean) {
  Rng rng(seed);
  float* d = tensor->mutable_data();
  for (int64_t i = 0; i < tensor->count(); ++i) d[i] = rng.Gaussian(mean, stddev);
}

void FillUniform(Tensor* tensor, uint64_t seed, float lo, float hi) {
  Rng rng(seed);
  float* d = tensor->mutable_data();
  for (int64_t i = 0; i < tensor->count(); ++i) d[i] = rng.Uniform(lo, hi);
}

void CheckGradients(Layer& layer, const TensorVec& bottom, const TensorVec& top,
                    const GradientCheckOptions& options) {
  Status setup = layer.Setup(bottom, top);
  ASSERT_TRUE(setup.ok()) << setup.message();

  // Fixed random objective weights, one per top element.
  Rng rng(options.seed);
  std::vector<std::vector<float>> weights(top.size());
  EXPECT_TRUE(layer.Forward(bottom, top, nullptr).ok());
  for (size_t k = 0; k < top.size(); ++k) {
    weights[k].resize(top[k]->count());
    const bool in_objective =
        options.tops.empty() || std::find(options.tops.begin(), options.tops.end(),
                                          static_cast<int>(k)) != options.tops.end();
    for (float& w : weights[k]) w = in_objective ? rng.Uniform(-1.f, 1.f) : 0.f;
  }

  // What to check: each entry is a tensor whose data we perturb and whose diff is analytic.
  struct Target {
    Tensor* tensor;
    std::string name;
    std::vector<float> analytic;
  };
  std::vector<Target> targets;
  std::vector<bool> propagate_down(bottom.size(), false);
  for (size_t i = 0; i < bottom.size(); ++i) {
    const bool wanted =
        options.bottoms.empty() || std::find(options.bottoms.begin(), options.bottoms.end(),
                                             static_cast<int>(i)) != options.bottoms.end();
    if (!wanted) continue;
    propagate_down[i] = true;
    targets.push_back({bottom[i], "bottom[" + std::to_string(i) + "]", {}});
  }
  if (options.check_params) {
    for (size_t i = 0; i < layer.blobs().size(); ++i) {
      targets.push_back({layer.blobs()[i].get(), "param[" + std::to_string(i) + "]", {}});
    }
  }

  // Analytic gradients.
  EXPECT_TRUE(layer.Forward(bottom, top, nullptr).ok());
  // Bottom diffs are zeroed first: a top may share its bottom's diff (Flatten, Reshape, in place).
  for (auto& p : layer.blobs()) p->SetDiff(0.f);
  for (Tensor* b : bottom) b->SetDiff(0.f);
  for (size_t k = 0; k < top.size(); ++k) {
    std::copy(weights[k].begin(), weights[k].end(), top[k]->mutable_diff());
  }
  layer.Backward(top, propagate_down, bottom);
  for (Target& t : targets)
    t.analytic.assign(t.tensor->diff(), t.tensor->diff() + t.tensor->count());

  // Numeric gradients, element by element.
  int failures = 0;
  for (Target& t : targets) {
    for (int64_t j = 0; j < t.tensor->count(); ++j) {
      // The pointer is taken anew for every write: a layer may have read the tensor into
      // another layout, which a write through an older pointer would leave current.
      auto set = [&](float value) { t.tensor->mutable_data()[j] = value; };
      const float original = t.tensor->data()[j];
      if (options.kink_range >= 0 && std::fabs(original - options.kink) < options.kink_range)
        continue;
      set(original + options.step);
      const double plus = Objective(layer, bottom, top, weights);
      set(original - options.step);
      const double minus = Objective(layer, bottom, top, weights);
      set(original);
      const double numeric = (plus - minus) / (2.0 * options.step);
      const double analytic = t.analytic[j];
      const double scale = std::max({std::fabs(analytic), std::fabs(numeric), 1.0});
      if (std::fabs(analytic - numeric) > options.threshold * scale && failures < 20) {
        ++failures;
        ADD_FAILURE() << layer.type() << " " << t.name << " element " << j << ": analytic "
                      << analytic << " vs numeric " << numeric;
      }
    }
  }
}

}  // namespace dtrain::testing
