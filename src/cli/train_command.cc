// dtrain train: Caffe's `caffe train`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "cli/metrics_file.h"
#include "cli/output_guard.h"
#include "cli/signal_actions.h"
#include "cli/tensorboard_events.h"
#include "core/logging.h"
#include "core/proto_io.h"
#include "distributed/communicator.h"
#include "distributed/rank_job.h"
#include "distributed/trainer.h"
#include "kernels/compute_threads.h"
#include "net/read_net.h"
#include "solver/multi_phase.h"
#include "solver/net_loading.h"
#include "solver/snapshot_output.h"
#include "solver/solver.h"
#include "solver/timed_snapshots.h"

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

// --log-dir=DIR: every rank's full log in DIR/rank_<rank>.log, rank 0's included.
Status OpenRankLog(const Flags& flags, const Communicator& communicator) {
  if (!flags.Has("log-dir")) return Status::Ok();
  const std::string dir = flags.Get("log-dir");
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string path = dir + "/rank_" + std::to_string(communicator.rank()) + ".log";
  if (error || !SetLogFile(path)) return IoError("--log-dir: cannot write " + path);
  return Status::Ok();
}

// --timeline=F.json: with several ranks each writes its own file, F.rank<r>.json (or F with %#
// expanded, if it has one).
std::string TimelinePath(const std::string& path, const Communicator& communicator) {
  if (communicator.size() == 1) return path;
  if (path.find("%#") != std::string::npos) {
    return ExpandRankPattern(path, communicator.rank(), communicator.size());
  }
  const std::string suffix = ".rank" + std::to_string(communicator.rank());
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + suffix;
  return path.substr(0, dot) + suffix + path.substr(dot);
}

// The closing line of the scores of test net #0's last pass: "Final" only where that pass ran at
// the end (as Caffe tests there only where test_interval divides the last iteration); otherwise
// it says which iteration the scores are from. Worded so that Caffe's log parsers (parse_log.sh,
// parse_log.py) skip it: no "Iteration ", "Test net output", ", loss = " or "lr = ".
std::string LastTestLine(const TestReport& test, int last_iteration, int test_interval,
                         int test_offset) {
  std::ostringstream line;
  if (test.iter == last_iteration) {
    line << "Final test scores (net #0, iteration " << test.iter << "): ";
  } else {
    line << "No test ran at the end (iteration " << last_iteration << ": ";
    if (test_interval <= 0) {
      line << "test_interval is 0";
    } else if ((last_iteration - test_offset) % test_interval != 0) {
      line << "test_interval " << test_interval;
      if (test_offset != 0) line << " after test_offset " << test_offset;
      line << " does not divide it, so, as in Caffe, none";
    } else {
      line << "training stopped before its test";
    }
    line << "); the last test scores (net #0) are from iteration " << test.iter << ": ";
  }
  for (size_t i = 0; i < test.scores.size(); ++i) {
    line << (i > 0 ? ", " : "") << test.scores[i].name << " " << test.scores[i].value;
  }
  return line.str();
}

// One phase of an Intel Caffe multi-phase file: its solver, its number, and the weights the
// phases hand on (the previous phase's before training, this one's after).
struct TrainingPhase {
  SolverParameter solver;
  int index = 0;
  NetParameter weights;
};

// Trains the --solver file, or one phase of it when `phase` is given.
Status Train(const Flags& flags, Communicator& communicator, const std::string& who,
             TrainingPhase* phase) {
  const bool leader = communicator.rank() == 0;
  TrainerOptions options;
  options.who = who;
  // A collective that makes no progress means a stopped, dead or unreachable rank, which MPI
  // may wait for forever: the trainer reports it and ends this process, which ends the job.
  DT_ASSIGN_OR_RETURN(int timeout_s, flags.GetInt("collective-timeout"));
  if (timeout_s <= 0) return InvalidArgument("--collective-timeout must be positive");
  options.collective_timeout = std::chrono::seconds(timeout_s);
  if (flags.Has("gpu")) DT_LOG(INFO) << "--gpu given; dtrain trains on the CPU.";
  JobRequest request;
  request.solver_path = flags.Get("solver");
  if (phase) request.solver = phase->solver;
  request.rank = communicator.rank();
  request.world = communicator.size();
  if (flags.Has("iterations")) {
    DT_ASSIGN_OR_RETURN(request.iterations, flags.GetInt("iterations"));
    if (request.iterations < 0) {
      return InvalidArgument("--iterations must not be negative, got " +
                             std::to_string(request.iterations));
    }
  }
  if (flags.Has("engine")) request.engine = flags.Get("engine");
  request.global_batch = flags.GetBool("global-batch");
  const std::string uneven = flags.Get("uneven-batch");
  if (uneven != "keep-batch" && uneven != "scale-lr") {
    return InvalidArgument("--uneven-batch must be keep-batch or scale-lr, not '" + uneven + "'");
  }
  request.uneven_batch = uneven == "scale-lr" ? UnevenBatch::kScaleLr : UnevenBatch::kKeepBatch;
  request.data_server_uri = flags.Get("data-server-uri");
  DT_ASSIGN_OR_RETURN(const int restart, flags.GetInt("restart-count"));
  if (restart < 0) return InvalidArgument("--restart-count must not be negative");
  DT_ASSIGN_OR_RETURN(RankJob job, ResolveRankJob(request));
  DT_LOG(INFO) << DescribeRankJob(job, request);
  for (const std::string& change : job.changes) DT_LOG(INFO) << change;
  const SolverParameter& param = job.solver;
  // Only rank 0 writes snapshots; it finds out now if it cannot.
  if (leader &&
      (param.snapshot() > 0 || param.snapshot_interval_s() > 0 || param.snapshot_after_train())) {
    DT_RETURN_IF_ERROR(PrepareSnapshotOutput(param.snapshot_prefix()));
  }
  options.per_rank_sources = job.per_rank_sources;
  options.shard_train_net = job.shard_train_net;
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(param));
  for (int i = 0; i < param.test_iter_size(); ++i) {
    if (param.test_iter(i) % communicator.size() == 0) continue;
    DT_LOG(WARNING) << "test_iter " << param.test_iter(i) << " of test net #" << i
                    << " is not a multiple of the " << communicator.size()
                    << " ranks: a test pass scores as many batches as one process would, but "
                       "not exactly the same images";
  }
  if (flags.Has("bucket-kb")) {
    DT_ASSIGN_OR_RETURN(int kib, flags.GetInt("bucket-kb"));
    if (kib <= 0) return InvalidArgument("--bucket-kb must be positive");
    options.buckets.bucket_bytes = static_cast<size_t>(kib) << 10;
  }
  std::unique_ptr<Timeline> timeline;
  if (flags.Has("timeline")) {
    DT_ASSIGN_OR_RETURN(timeline, Timeline::Open(TimelinePath(flags.Get("timeline"), communicator),
                                                 communicator.rank()));
    solver->SetTimeline(timeline.get());
    options.timeline = timeline.get();
  }
  Trainer trainer(*solver, communicator, std::move(options));
  LogEngineChoices(solver->net(), flags.GetBool("verbose"));
  for (const auto& test_net : solver->test_nets())
    LogEngineChoices(*test_net, flags.GetBool("verbose"));
  trainer.SetActionSource(
      WithTimedSnapshots(InstallSignalActions(who), param.snapshot_interval_s(), leader));

  const std::vector<NamedPath> inputs = {{"the --solver", flags.Get("solver")},
                                         {"the --snapshot", flags.Get("snapshot")},
                                         {"the --weights", flags.Get("weights")},
                                         {"the solver's net", param.net()},
                                         {"the solver's train_net", param.train_net()}};
  if (flags.Has("metrics")) {
    DT_RETURN_IF_ERROR(RefuseOutputOverInput("--metrics", flags.Get("metrics"), inputs));
  }
  std::unique_ptr<MetricsFile> metrics;
  if (flags.Has("metrics") && leader) {  // one metrics file, from rank 0
    DT_ASSIGN_OR_RETURN(metrics, MetricsFile::Open(flags.Get("metrics"),
                                                   restart > 0 || (phase && phase->index > 0)));
    MetricsFile* m = metrics.get();
    solver->AddDisplayObserver([m](const IterationReport& r) { m->WriteTrain(r); });
    solver->AddTestObserver([m](const TestReport& r) { m->WriteTest(r); });
  }
  std::unique_ptr<TensorBoardEvents> tensorboard;
  if (flags.Has("tensorboard") && leader) {  // one run directory, from rank 0
    DT_ASSIGN_OR_RETURN(tensorboard, TensorBoardEvents::Open(flags.Get("tensorboard")));
    DT_LOG(INFO) << "TensorBoard events: " << tensorboard->path();
    TensorBoardEvents* t = tensorboard.get();
    solver->AddDisplayObserver([t](const IterationReport& r) { t->WriteTrain(r); });
    solver->AddTestObserver([t](const TestReport& r) { t->WriteTest(r); });
  }
  TestReport last_test;
  bool tested = false;
  solver->AddTestObserver([&](const TestReport& r) {
    if (r.net_id == 0) last_test = r, tested = true;
  });

  // Fine-tuning from --weights, or else from the solver's `weights` files, as Caffe does.
  std::string weights = flags.Get("weights");
  if (!flags.Has("weights")) {
    for (const std::string& w : param.weights()) weights += (weights.empty() ? "" : ",") + w;
  } else if (param.weights_size() > 0) {
    DT_LOG(INFO) << "--weights overrides the solver's weights";
  }
  if (phase && phase->index > 0) {  // every rank holds the weights the last phase ended with
    DT_RETURN_IF_ERROR(solver->net().CopyTrainedLayersFrom(phase->weights));
  } else if (flags.Has("snapshot")) {
    DT_RETURN_IF_ERROR(trainer.Restore(flags.Get("snapshot")));
  } else if (!weights.empty() && leader) {  // the broadcast below gives them to every rank
    DT_RETURN_IF_ERROR(LoadWeights(weights, flags.GetBool("weights-strict"), &solver->net()));
  }
  if (restart > 0) {
    const std::string reason = flags.Get("restart-reason");
    DT_LOG(INFO) << "Restart " << restart << " of this job, on " << communicator.size()
                 << " rank(s), resuming from iteration " << solver->iter()
                 << (reason.empty() ? "" : ": ") << reason;
    if (metrics) metrics->WriteRestart(restart, solver->iter(), communicator.size(), reason);
    if (tensorboard) tensorboard->WriteRestart(restart, solver->iter());
  }
  DT_LOG(INFO) << "Starting Optimization";
  DT_RETURN_IF_ERROR(trainer.Solve());
  if (phase) solver->net().ToProto(&phase->weights);
  if (tested)
    DT_LOG(INFO) << LastTestLine(last_test, solver->iter(), param.test_interval(),
                                 param.test_offset());
  // Training is done and its snapshots are written; an output that lost records still fails the
  // run, so that a job never ends with an incomplete record in silence.
  if (metrics) DT_RETURN_IF_ERROR(metrics->status());
  if (tensorboard) DT_RETURN_IF_ERROR(tensorboard->status());
  if (timeline) DT_RETURN_IF_ERROR(timeline->status());
  return Status::Ok();
}

// The --solver file, or each phase of an Intel Caffe multi-phase file in turn.
Status TrainAllPhases(const Flags& flags, Communicator& communicator, const std::string& who) {
  DT_ASSIGN_OR_RETURN(const std::optional<std::vector<SolverParameter>> phases,
                      ReadSolverPhases(flags.Get("solver")));
  if (!phases) return Train(flags, communicator, who, nullptr);
  if (flags.Has("snapshot")) {
    return InvalidArgument(
        "--snapshot resumes one solver; " + flags.Get("solver") +
        " is a multi-phase file (Intel Caffe's): train its phases from the start, or resume a "
        "phase's snapshot with a solver file of that phase");
  }
  TrainingPhase phase;
  for (size_t j = 0; j < phases->size(); ++j) {
    DT_LOG(INFO) << "Phase " << j << " of " << phases->size() << " of " << flags.Get("solver")
                 << " (Intel Caffe's multi-phase training), snapshot_prefix "
                 << (*phases)[j].snapshot_prefix();
    phase.solver = (*phases)[j];
    phase.index = static_cast<int>(j);
    DT_RETURN_IF_ERROR(
        Train(flags, communicator, who, &phase).WithContext("phase " + std::to_string(j)));
  }
  return Status::Ok();
}

Status RunTrain(const Flags& flags) {
  if (flags.Get("solver").empty()) return InvalidArgument("--solver is required");
  if (flags.Has("snapshot") && flags.Has("weights")) {
    return InvalidArgument("give --snapshot (resume) or --weights (fine-tune), not both");
  }
  DT_RETURN_IF_ERROR(ApplyThreadsFlag(flags));
  // A write to a peer that is gone (a dead rank's socket, under srun) is an error to report, not a
  // signal that kills this rank too and hides which rank failed first.
  std::signal(SIGPIPE, SIG_IGN);
  // Started by mpirun or srun: one rank of a data-parallel job (src/distributed/); rank 0 leads.
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Communicator> communicator, CreateCommunicator());
  if (communicator->rank() != 0) SetLogToStderr(false);
  const std::string who = "rank " + std::to_string(communicator->rank()) + " of " +
                          std::to_string(communicator->size()) + " (host " +
                          communicator->host(communicator->rank()) + ", pid " +
                          std::to_string(getpid()) + ")";
  // From here on every error goes through the abort below: a rank that returned alone would
  // leave the others waiting for it.
  Status status = OpenRankLog(flags, *communicator);
  if (status.ok() && communicator->size() > 1) {
    DT_LOG(INFO) << "Data-parallel: " << communicator->description() << "; this is " << who;
  }
  if (status.ok()) status = TrainAllPhases(flags, *communicator, who);
  if (!status.ok() && communicator->size() > 1) {
    // The other ranks would wait for this one in their next collective: end them all now.
    // Rank 0 logs to the console; the others' errors must reach it too.
    if (communicator->rank() != 0) {
      std::fprintf(stderr, "dtrain train: error on %s: %s\n", who.c_str(),
                   status.message().c_str());
    }
    DT_LOG(ERROR) << "error on " << who << ": " << status.message() << " (ending the job)";
    communicator->Abort(1);
  }
  return status;
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
