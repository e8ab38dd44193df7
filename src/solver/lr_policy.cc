#include "solver/lr_policy.h"

#include <cmath>

namespace dtrain {

Status ValidateLrPolicy(const SolverParameter& p) {
  const std::string& policy = p.lr_policy();
  if (policy == "fixed" || policy == "exp" || policy == "inv" || policy == "poly") {
    return Status::Ok();
  }
  if (policy == "step" || policy == "sigmoid") {
    if (p.stepsize() <= 0) return InvalidArgument("lr_policy \"" + policy + "\" needs stepsize > 0");
    return Status::Ok();
  }
  if (policy == "multistep") {
    for (int i = 1; i < p.stepvalue_size(); ++i) {
      if (p.stepvalue(i) <= p.stepvalue(i - 1)) {
        return InvalidArgument("lr_policy \"multistep\" needs increasing stepvalue entries");
      }
    }
    return Status::Ok();
  }
  return Unsupported("unknown lr_policy \"" + policy +
                     "\"; supported: fixed, step, exp, inv, multistep, poly, sigmoid");
}

static float PolicyRate(const SolverParameter& p, int iter) {
  const std::string& policy = p.lr_policy();
  const double base = p.base_lr();
  if (policy == "fixed") return p.base_lr();
  if (policy == "step") return static_cast<float>(base * std::pow(p.gamma(), iter / p.stepsize()));
  if (policy == "exp") return static_cast<float>(base * std::pow(p.gamma(), iter));
  if (policy == "inv") {
    return static_cast<float>(base * std::pow(1.0 + p.gamma() * iter, -p.power()));
  }
  if (policy == "multistep") {
    int step = 0;
    while (step < p.stepvalue_size() && iter >= p.stepvalue(step)) ++step;
    return static_cast<float>(base * std::pow(p.gamma(), step));
  }
  if (policy == "poly") {
    return static_cast<float>(
        base * std::pow(1.0 - static_cast<double>(iter) / p.max_iter(), p.power()));
  }
  if (policy == "sigmoid") {
    return static_cast<float>(base / (1.0 + std::exp(-p.gamma() * (iter - p.stepsize()))));
  }
  return p.base_lr();
}

float LearningRate(const SolverParameter& p, int iter) {
  const float rate = PolicyRate(p, iter);
  if (p.warmup_iter() > 0 && iter < p.warmup_iter()) {
    const float start = p.warmup_start_lr();
    return start + (rate - start) * static_cast<float>(iter) / static_cast<float>(p.warmup_iter());
  }
  return rate;
}

}  // namespace dtrain
