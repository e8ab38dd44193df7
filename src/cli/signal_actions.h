// Signals during `dtrain train`, as in Caffe: SIGINT (Ctrl-C) and SIGTERM snapshot and stop after
// the current iteration; SIGHUP snapshots and continues. The handlers only set flags; the solver
// polls them between iterations, so a snapshot is never written from a signal handler.
#pragma once

#include "solver/solver.h"

namespace dtrain {

// Installs the handlers (for the life of the process) and returns the poll for the solver.
std::function<SolverAction()> InstallSignalActions();

}  // namespace dtrain
