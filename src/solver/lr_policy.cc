#include "solver/lr_policy.h"

#include <cmath>
#include <string>

namespace dtrain {

Status ValidateLrPolicy(const SolverParameter& p) {
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
  return Unsupported("unknown lr_policy \"" + policy +
                     "\"; supported: fixed, step, exp, inv, multistep, poly, sigmoid");
}

// Caffe's arithmetic, so that rates agree with Caffe's logs to the last printed digit: the fields
// are floats and so are the arguments built from them (1 + gamma * iter is rounded to a float);
// pow and exp run in double (Caffe calls C's), and the product is rounded to a float at the end.
// CMakeLists.txt compiles this file without FMA contraction, which would round 1 + gamma * iter
// differently.
static float PolicyRate(const SolverParameter& p, int iter) {
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
  return base;  // fixed
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
