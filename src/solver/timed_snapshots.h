// snapshot_interval_s (a dtrain solver field): a snapshot every T seconds of wall time, besides
// Caffe's every `snapshot` iterations, so that a restarted job loses at most T seconds of work
// whatever the speed of its iterations. Wraps the action source the solver polls after every
// iteration (solver.h): when T has passed since the start (this wrapping) or the last timed
// snapshot, a kNone becomes kSnapshot. In a data-parallel job only rank 0's clock asks
// (`clock_owner`); the ranks' agreement on the action (Trainer) makes every rank snapshot at the
// same iteration. Not thread-safe (polled by the training thread).
#pragma once

#include <chrono>
#include <functional>

#include "solver/solver.h"

namespace dtrain {

using SnapshotClock = std::function<std::chrono::steady_clock::time_point()>;

// `source` may be null (no other requests). interval_s <= 0 returns `source` unchanged.
std::function<SolverAction()> WithTimedSnapshots(
    std::function<SolverAction()> source, double interval_s, bool clock_owner,
    SnapshotClock now = std::chrono::steady_clock::now);

}  // namespace dtrain
