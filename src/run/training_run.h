// One training run of this process: what `dtrain train` does once its flags are read. It resolves
// this rank's job (distributed/rank_job.h), checks where snapshots go, builds the solver and the
// Trainer, starts from Caffe's weights rule (solver/initial_weights.h) or resumes, attaches the
// run's outputs (metrics, TensorBoard, timeline: report/) and the signal actions, trains every
// phase of the solver file, and logs the final scores. A failing rank of several ends the whole
// job (the others would wait for it in their next collective).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "core/status.h"
#include "distributed/rank_job.h"

namespace dtrain {

class Communicator;

// Plain values: the command line's, already checked for range (cli/train_command.cc).
struct TrainingRunOptions {
  // The solver file and the rewrites the job asks for (rank and world are the run's to fill).
  JobRequest job;
  std::string snapshot;         // resume from this .solverstate; empty: start fresh
  std::string weights;          // --weights: replaces the solver's `weights:`; empty: none given
  bool weights_strict = false;  // a layer without a namesake on the other side is an error
  std::string log_dir;          // every rank's log to DIR/rank_<r>.log; empty: console only
  std::string metrics_path;     // one JSON line per display/test event (rank 0); empty: none
  std::string tensorboard_dir;  // TensorBoard event files (rank 0); empty: none
  std::string timeline_path;    // a Chrome trace per rank; empty: none
  int restart_count = 0;        // this run is the job's K-th restart (dtrain launch)
  std::string restart_reason;
  std::chrono::seconds collective_timeout{60};
  size_t bucket_bytes = 0;  // gradient bucket size; 0: the Trainer's default
  bool verbose = false;     // list every layer's implementation choice
  // SIGINT/SIGTERM snapshot and stop, SIGHUP snapshots (run/signal_actions.h); off for runs that
  // are threads of a process that keeps its own handlers (the in-process tests).
  bool handle_signals = true;
};

// Trains under `communicator` (MPI's world, one process, or a loopback group in tests); `who`
// names this process in messages ("rank 1 of 2 (host n1, pid 42)").
Status RunTraining(const TrainingRunOptions& options, Communicator& communicator,
                   const std::string& who);

// The whole job of this process: creates the communicator (MPI's world under mpirun or srun, one
// process otherwise), runs RunTraining, and on an error with several ranks ends them all.
Status RunTrainingJob(const TrainingRunOptions& options);

}  // namespace dtrain
