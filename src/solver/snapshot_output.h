// Where snapshots go, checked before training starts (as Caffe's Solver checks its snapshot
// prefix): a missing or unwritable directory is an error now, not after all the training at the
// first snapshot. Also removes the temporaries that killed snapshot writes left behind
// ("<prefix>_iter_N.caffemodel.tmp-<pid>", core/stale_files.h). Stateless.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/solver.pb.h"

namespace dtrain {

Status PrepareSnapshotOutput(const std::string& snapshot_prefix);
// The same for a solver that writes snapshots (snapshot, snapshot_interval_s or
// snapshot_after_train set); nothing for one that writes none.
Status PrepareSnapshotOutputOf(const SolverParameter& solver);

}  // namespace dtrain
