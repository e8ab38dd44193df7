// The checks a SolverParameter must pass before any net is built, shared by training (Solver::Init)
// and `dtrain check --solver`: the learning-rate policy and its fields, the regularization type,
// iter_size, average_loss, max_iter, that a net is named, and the snapshot format. Each failure
// names the field. Stateless.
#pragma once

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

Status ValidateSolverParameter(const SolverParameter& param);

}  // namespace dtrain
