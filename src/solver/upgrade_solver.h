// Caffe's upgrade path for old solver files (UpgradeSolverAsNeeded): the legacy `solver_type`
// enum becomes the `type` string; dtrain also upgrades the nets written inside the solver
// (net_param, train_net_param, test_net_param) as net/upgrade_net.h does for net files, since
// old solvers such as Caffe's lenet_consolidated_solver.prototxt hold V1 nets inline.
//
// UpgradeSolverType is pure; the others log one INFO line per upgrade, naming the file.
// Stateless; thread-safe.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

// solver_type -> type ("SGD", "Nesterov", "AdaGrad", "RMSProp", "AdaDelta", "Adam") and
// solver_type cleared. Both set: an error when they name different solvers (Caffe refuses any
// file with both), else solver_type is dropped. Returns whether anything changed.
StatusOr<bool> UpgradeSolverType(SolverParameter* solver);

// The type upgrade and every inline net's upgrade; `source` names the file in logs and errors.
Status UpgradeSolverAsNeeded(const std::string& source, SolverParameter* solver);

// A prototxt solver file, upgraded.
StatusOr<SolverParameter> ReadSolverParameter(const std::string& path);

}  // namespace dtrain
