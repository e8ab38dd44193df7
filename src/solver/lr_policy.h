// Learning-rate policies of Caffe's SolverParameter, as pure functions of the iteration:
//   fixed     base_lr
//   step      base_lr * gamma ^ floor(iter / stepsize)
//   exp       base_lr * gamma ^ iter
//   inv       base_lr * (1 + gamma * iter) ^ (-power)
//   multistep base_lr * gamma ^ (number of stepvalue entries <= iter)
//   poly      base_lr * (1 - iter / max_iter) ^ power
//   sigmoid   base_lr * 1 / (1 + exp(-gamma * (iter - stepsize)))
// plus dtrain's warmup (Intel Caffe's warmup_iter / warmup_start_lr): a linear ramp from
// warmup_start_lr to the policy's rate over the first warmup_iter iterations.
#pragma once

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

// Checks lr_policy and the fields it needs (e.g. stepsize > 0 for "step").
Status ValidateLrPolicy(const SolverParameter& param);
float LearningRate(const SolverParameter& param, int iter);

}  // namespace dtrain
