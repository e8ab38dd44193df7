// Signals during `dtrain train`, as in Caffe: SIGINT (Ctrl-C) and SIGTERM snapshot and stop after
// the current iteration; SIGHUP snapshots and continues. The handlers only set flags; the solver
// polls them between iterations, so a snapshot is never written from a signal handler.
//
// A rank that receives SIGTERM (a scheduler's pre-emption, a spot interruption handler) says so on
// stderr, whatever rank it is, so that `dtrain launch --max-restarts` learns which host is going
// away: "dtrain train: rank 2 of 3 (host n2, pid 4711) received SIGTERM: snapshotting and
// stopping".
#pragma once

#include <string>

#include "solver/solver.h"

namespace dtrain {

// Installs the handlers (for the life of the process) and returns the poll for the solver;
// `who` names this process in the SIGTERM notice.
std::function<SolverAction()> InstallSignalActions(const std::string& who);

}  // namespace dtrain
