#include "solver/lr_policy.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace dtrain {

Status ValidateWarmup(const SolverParameter& p);

Status ValidateLrPolicy(const SolverParameter& p) {
  DT_RETURN_IF_ERROR(ValidateWarmup(p));
  const std::string& policy = p.lr_policy();
  if (policy == "fixed" || policy == "exp" || policy == "inv" || policy == "poly") {
    return Status::Ok();
  }
  if (policy == "step" || policy == "sigmoid") {
    if (p.stepsize() <= 0)
      return InvalidArgument("lr_policy \"" + policy + "\" needs stepsize > 0");
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
  if (policy == "plateau") {
    for (int w : p.plateau_winsize()) {
      if (w <= 0) {
        return InvalidArgument(
            "lr_policy \"plateau\" needs positive plateau_winsize entries, got " +
            std::to_string(w));
      }
    }
    return Status::Ok();
  }
  if (policy == "multifixed") {
    // Intel Caffe stops at its first update (CHECK_EQ) on unequal lists.
    if (p.stagelr_size() == 0 || p.stagelr_size() != p.stageiter_size()) {
      return InvalidArgument(
          "lr_policy \"multifixed\" needs as many stageiter as stagelr entries "
          "(at least one), got " +
          std::to_string(p.stageiter_size()) + " and " + std::to_string(p.stagelr_size()));
    }
    return Status::Ok();
  }
  return Unsupported("unknown lr_policy \"" + policy +
                     "\"; supported: fixed, step, exp, inv, multistep, poly, sigmoid, plateau, "
                     "multifixed");
}

Status ValidateWarmup(const SolverParameter& p) {
  if (p.warmup_iter() < 0) {
    return InvalidArgument("warmup_iter must not be negative, got " +
                           std::to_string(p.warmup_iter()));
  }
  if (p.warmup_iter() > 0 && !(p.warmup_start_lr() >= 0 && std::isfinite(p.warmup_start_lr()))) {
    return InvalidArgument("warmup_start_lr must be a finite rate >= 0, got " +
                           std::to_string(p.warmup_start_lr()));
  }
  return Status::Ok();
}

// Caffe's arithmetic, so that rates agree with Caffe's logs to the last printed digit: the fields
// are floats and so are the arguments built from them (1 + gamma * iter is rounded to a float);
// pow and exp run in double (Caffe calls C's), and the product is rounded to a float at the end.
// CMakeLists.txt compiles this file without FMA contraction, which would round 1 + gamma * iter
// differently.
static float PolicyRate(const SolverParameter& p, int iter, int plateau_step) {
  const std::string& policy = p.lr_policy();
  const float base = p.base_lr();
  const float gamma = p.gamma();
  const auto pow = [](float x, float y) { return std::pow(static_cast<double>(x), y); };
  if (policy == "step") return static_cast<float>(base * pow(gamma, iter / p.stepsize()));
  if (policy == "exp") return static_cast<float>(base * pow(gamma, iter));
  if (policy == "inv") {
    return static_cast<float>(base * pow(1.f + gamma * static_cast<float>(iter), -p.power()));
  }
  if (policy == "multistep") {
    int step = 0;
    while (step < p.stepvalue_size() && iter >= p.stepvalue(step)) ++step;
    return static_cast<float>(base * pow(gamma, step));
  }
  if (policy == "poly") {
    const float left = 1.f - static_cast<float>(iter) / static_cast<float>(p.max_iter());
    return static_cast<float>(base * pow(left, p.power()));
  }
  if (policy == "sigmoid") {
    const float x = -gamma * (static_cast<float>(iter) - static_cast<float>(p.stepsize()));
    return static_cast<float>(base * (1.0 / (1.0 + std::exp(static_cast<double>(x)))));
  }
  if (policy == "plateau") return static_cast<float>(base * pow(gamma, plateau_step));
  if (policy == "multifixed") {
    int stage = 0;
    while (stage < p.stageiter_size() && iter > p.stageiter(stage)) ++stage;
    return p.stagelr(std::min(stage, p.stagelr_size() - 1));
  }
  return base;  // fixed
}

bool InWarmup(const SolverParameter& p, int iter) {
  return p.warmup_iter() > 0 && iter < p.warmup_iter();
}

float WarmupRate(const SolverParameter& p, int iter) {
  // Intel Caffe's GetWarmUpLR in float: int x float products, their float sum over an int.
  const int i = std::max(iter, 0);
  const float ramped = static_cast<float>(i) * p.base_lr() +
                       static_cast<float>(p.warmup_iter() - i) * p.warmup_start_lr();
  return ramped / static_cast<float>(p.warmup_iter());
}

float LearningRate(const SolverParameter& p, int iter, int plateau_step) {
  if (InWarmup(p, iter)) return WarmupRate(p, iter);
  return PolicyRate(p, iter, plateau_step);
}

}  // namespace dtrain
