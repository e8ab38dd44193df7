// Trainer: one rank's part in data-parallel training of a solver (Caffe's caffe::NCCL is the
// shape). It takes the solver and the communicator, attaches itself, and runs:
// - every net's data layers read this rank's share of each epoch (ShardedSource), except those
//   that read files of their own (per-rank sources, or a per-rank solver's train net);
// - the train net's gradients are summed over the ranks once per iteration, after the last of
//   `iter_size` backward passes, overlapping that pass (DataParallel);
// - test passes are split over the ranks, displayed losses and scores summed, statistics
//   (BatchNorm's) averaged before tests and snapshots, and only rank 0 writes snapshots;
// - between iterations every rank does what any rank's action source asked (a signal on one
//   rank stops them all);
// - every collective is watched: one that makes no progress for the timeout is reported, naming
//   the ranks it waits for (Communicator::DescribeMissingRanks), to `on_stall`;
// - a snapshot is read by rank 0 alone and sent to every rank; training starts from rank 0's
//   weights.
// On a communicator of one process it attaches nothing and runs the solver as it is. The
// solver and the communicator outlive the trainer; one trainer per solver.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "core/status.h"
#include "core/timeline.h"
#include "distributed/communicator.h"
#include "distributed/data_parallel.h"
#include "distributed/progress_watchdog.h"
#include "solver/solver.h"

namespace dtrain {

struct TrainerOptions {
  BucketOptions buckets;
  std::chrono::milliseconds collective_timeout = std::chrono::minutes(5);
  // Called once, on the watchdog's thread, with the report of a stalled collective ("the
  // allreduce of a gradient bucket has made no progress for 3 s ...; missing: rank 1 ...").
  // Default: log it and end this process with exit status 3 (which ends an MPI job).
  std::function<void(const std::string& report)> on_stall;
  // Names this rank in reports: "rank 1 of 2 (host n1, pid 42)".
  std::string who;
  // Data layers (by name) that read a file of their own on every rank (a %# source).
  std::set<std::string> per_rank_sources;
  // False when every rank has a solver of its own with its own training data: the train net's
  // data layers then read all of their sources (test nets are still shared out).
  bool shard_train_net = true;
  Timeline* timeline = nullptr;  // records the allreduces and waits (optional)
};

class Trainer {
 public:
  Trainer(Solver& solver, Communicator& communicator, TrainerOptions options);
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Polled between iterations on every rank; the ranks then agree (any stop, else any snapshot).
  void SetActionSource(std::function<SolverAction()> source);
  // Resumes from a .solverstate (and the weights it names) that rank 0 reads.
  Status Restore(const std::string& solverstate_path);
  // Gives rank 0's parameters to every rank and trains to the solver's max_iter.
  Status Solve();

  // The gradient exchange (for logs and benchmarks).
  DataParallel& exchange() { return *exchange_; }

 private:
  void ShardDataLayers();

  Solver& solver_;
  Communicator& communicator_;
  TrainerOptions options_;
  std::unique_ptr<ProgressWatchdog> watchdog_;  // with more than one rank
  std::unique_ptr<DataParallel> exchange_;
};

}  // namespace dtrain
