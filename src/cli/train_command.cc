// dtrain train: Caffe's `caffe train`.
#include <chrono>
#include <string>

#include "cli/command.h"
#include "core/logging.h"
#include "kernels/compute_threads.h"
#include "run/training_run.h"

namespace dtrain {

Status ApplyThreadsFlag(const Flags& flags) {
  int threads = 0;
  if (flags.Has("threads")) {
    DT_ASSIGN_OR_RETURN(threads, flags.GetInt("threads"));
    if (threads < 0)
      return InvalidArgument("--threads must be 0 (the default: idle usable cores) or positive");
  }
  // The thread count changes speed, and the last bits of oneDNN's sums (kernels/compute_threads.h).
  if (threads > 0) {
    kernels::SetComputeThreads(threads);
    return Status::Ok();
  }
  const kernels::ThreadChoice choice = kernels::DefaultComputeThreads();
  DT_LOG(INFO) << "Computing on " << choice.threads
               << (choice.threads == 1 ? " thread (" : " threads (") << choice.why << ")";
  kernels::SetComputeThreads(choice.threads);
  return Status::Ok();
}

namespace {

// The command line as a training run's options, each value checked for range.
StatusOr<TrainingRunOptions> OptionsFromFlags(const Flags& flags) {
  TrainingRunOptions options;
  JobRequest& job = options.job;
  job.solver_path = flags.Get("solver");
  if (job.solver_path.empty()) return InvalidArgument("--solver is required");
  if (flags.Has("snapshot") && flags.Has("weights")) {
    return InvalidArgument("give --snapshot (resume) or --weights (fine-tune), not both");
  }
  if (flags.Has("iterations")) {
    DT_ASSIGN_OR_RETURN(job.iterations, flags.GetInt("iterations"));
    if (job.iterations < 0) {
      return InvalidArgument("--iterations must not be negative, got " +
                             std::to_string(job.iterations));
    }
  }
  if (flags.Has("engine")) job.engine = flags.Get("engine");
  job.global_batch = flags.GetBool("global-batch");
  const std::string uneven = flags.Get("uneven-batch");
  if (uneven != "keep-batch" && uneven != "scale-lr") {
    return InvalidArgument("--uneven-batch must be keep-batch or scale-lr, not '" + uneven + "'");
  }
  job.uneven_batch = uneven == "scale-lr" ? UnevenBatch::kScaleLr : UnevenBatch::kKeepBatch;
  job.data_server_uri = flags.Get("data-server-uri");
  options.snapshot = flags.Get("snapshot");
  options.weights = flags.Get("weights");
  options.weights_strict = flags.GetBool("weights-strict");
  DT_ASSIGN_OR_RETURN(const int timeout_s, flags.GetInt("collective-timeout"));
  if (timeout_s <= 0) return InvalidArgument("--collective-timeout must be positive");
  options.collective_timeout = std::chrono::seconds(timeout_s);
  DT_ASSIGN_OR_RETURN(options.restart_count, flags.GetInt("restart-count"));
  if (options.restart_count < 0) return InvalidArgument("--restart-count must not be negative");
  options.restart_reason = flags.Get("restart-reason");
  if (flags.Has("bucket-kb")) {
    DT_ASSIGN_OR_RETURN(const int kib, flags.GetInt("bucket-kb"));
    if (kib <= 0) return InvalidArgument("--bucket-kb must be positive");
    options.bucket_bytes = static_cast<size_t>(kib) << 10;
  }
  options.log_dir = flags.Get("log-dir");
  options.metrics_path = flags.Get("metrics");
  options.tensorboard_dir = flags.Get("tensorboard");
  options.timeline_path = flags.Get("timeline");
  options.verbose = flags.GetBool("verbose");
  return options;
}

Status RunTrain(const Flags& flags) {
  DT_ASSIGN_OR_RETURN(const TrainingRunOptions options, OptionsFromFlags(flags));
  DT_RETURN_IF_ERROR(ApplyThreadsFlag(flags));
  if (flags.Has("gpu")) DT_LOG(INFO) << "--gpu given; dtrain trains on the CPU.";
  return RunTrainingJob(options);
}

}  // namespace

Command TrainCommand() {
  return {"train",
          "train a net with a Caffe solver prototxt",
          "",
          {{"solver", "solver prototxt"},
           {"snapshot", "resume from this .solverstate"},
           {"weights", "initialise from these .caffemodel files (comma-separated), by layer name"},
           {"weights-strict",
            "with --weights: a layer of the net or of a file with parameters "
            "and no namesake on the other side is an error",
            true},
           {"threads",
            "compute threads; 0 = $OMP_NUM_THREADS if set, else the usable cores other processes "
            "leave idle",
            false, "0"},
           {"iterations", "override the solver's max_iter"},
           {"log-dir",
            "write every rank's log to DIR/rank_<rank>.log (only rank 0 logs to the "
            "console)"},
           {"bucket-kb",
            "data-parallel: gradient bucket size in KiB (default: an eighth of the "
            "gradients, 1024 to 25600; the first bucket is at most 1024)"},
           {"global-batch",
            "data-parallel: the train Data layers' batch_size is the job's "
            "batch, shared evenly by the ranks (default: each rank's own)",
            true},
           {"uneven-batch",
            "--global-batch that the ranks cannot share evenly, not even with another "
            "iter_size: keep-batch refuses, scale-lr rounds each rank's batch down and "
            "scales base_lr",
            false, "keep-batch"},
           {"restart-count",
            "set by dtrain launch --max-restarts: this run is the job's K-th restart (logged, "
            "and the --metrics file is appended to)",
            false, "0"},
           {"restart-reason", "set by dtrain launch: why the job was restarted (logged)"},
           {"data-server-uri",
            "Data layers fed by a data server (source tcp://...) ask this one instead "
            "(dtrain launch sets it when a restart moves the server to a new master)"},
           {"collective-timeout",
            "data-parallel: seconds a collective may make no progress "
            "before the job is ended",
            false, "60"},
           {"metrics", "write one JSON line per display/test event to this file"},
           {"tensorboard",
            "write TensorBoard event files of the run into this directory (train loss, "
            "learning rate, images/s, test scores, restarts)"},
           {"timeline",
            "write a Chrome trace (chrome://tracing) of forward, backward, update, "
            "test, each gradient bucket's allreduce and the wait for it to this file "
            "(F.json; with N ranks F.rank<r>.json each)"},
           {"engine",
            "force one engine on every layer: onednn or reference (default: each "
            "layer's own choice)"},
           {"verbose", "list which implementation each layer runs and why others declined", true},
           {"gpu", "accepted for Caffe compatibility; dtrain trains on the CPU"}},
          RunTrain};
}

}  // namespace dtrain
