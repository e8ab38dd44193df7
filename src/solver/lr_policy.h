// Learning-rate policies of Caffe's SolverParameter, as pure functions of the iteration:
//   fixed     base_lr
//   step      base_lr * gamma ^ floor(iter / stepsize)
//   exp       base_lr * gamma ^ iter
//   inv       base_lr * (1 + gamma * iter) ^ (-power)
//   multistep base_lr * gamma ^ (number of stepvalue entries <= iter)
//   poly      base_lr * (1 - iter / max_iter) ^ power
//   sigmoid   base_lr * 1 / (1 + exp(-gamma * (iter - stepsize)))
// and Intel Caffe's
//   plateau    base_lr * gamma ^ step, the step counted by the solver (solver.h: it goes up when
//              the smoothed loss has made no new minimum for plateau_winsize[step] iterations)
//   multifixed stagelr[k] for the first k with iter <= stageiter[k], else the last stagelr
// and Intel Caffe's warmup, which overrides every policy while it lasts: for iter < warmup_iter
// the rate is (iter * base_lr + (warmup_iter - iter) * warmup_start_lr) / warmup_iter, a ramp
// that ends at base_lr (SGD also scales its momentum by rate / previous rate then).
#pragma once

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

// Checks lr_policy and the fields it needs (e.g. stepsize > 0 for "step"), and warmup's.
Status ValidateLrPolicy(const SolverParameter& param);
// The rate at `iter`; `plateau_step` is the plateau policy's step (ignored by the others).
float LearningRate(const SolverParameter& param, int iter, int plateau_step = 0);

// Whether `iter` is in the warmup.
bool InWarmup(const SolverParameter& param, int iter);
// Intel Caffe's warmup rate at `iter` (below 0 counts as 0), in its float arithmetic.
float WarmupRate(const SolverParameter& param, int iter);

}  // namespace dtrain
