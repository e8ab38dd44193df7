// dtrain train: Caffe's `caffe train`.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "cli/command.h"
#include "cli/metrics_file.h"
#include "cli/net_loading.h"
#include "cli/signal_actions.h"
#include "dist/communicator.h"
#include "dist/data_parallel.h"
#include "dist/global_batch.h"
#include "dist/progress_watchdog.h"
#include "dist/rank_paths.h"
#include "layers/sharded_source.h"
#include "core/logging.h"
#include "core/proto_io.h"
#include "net/read_net.h"
#include "solver/hdf5_snapshot.h"
#include "solver/snapshot_output.h"
#include "solver/solver.h"
#include "solver/upgrade_solver.h"

namespace dtrain {

Status ApplyThreadsFlag(const Flags& flags) {
  int threads = 0;
  if (flags.Has("threads")) {
    DT_ASSIGN_OR_RETURN(threads, flags.GetInt("threads"));
    if (threads < 0) return InvalidArgument("--threads must be 0 (all cores) or positive");
  }
  // Default: OMP_NUM_THREADS when the environment pins it (as batch schedulers do), else all
  // cores. The thread count changes speed, never results.
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (threads == 0 && env && std::atoi(env) > 0) threads = std::atoi(env);
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);  // oneDNN's thread pool
  return Status::Ok();
}

namespace {

// Resuming: rank 0 reads the .solverstate and the weights it names and sends both to every
// rank, so that only rank 0 needs the snapshot files.
Status RestoreOnEveryRank(const std::string& path, Communicator& communicator, Solver& solver) {
  if (communicator.size() == 1) return solver.Restore(path);
  std::string state_bytes, weights_bytes;
  if (communicator.rank() == 0) {
    DT_LOG(INFO) << "Restoring previous solver status from " << path
                 << " (sent to every rank)";
    DT_ASSIGN_OR_RETURN(const SolverState state, ReadSolverStateFile(path));
    NetParameter weights;
    if (state.has_learned_net()) {
      DT_ASSIGN_OR_RETURN(weights, ReadWeightsFile(state.learned_net()));
    }
    state.SerializeToString(&state_bytes);
    weights.SerializeToString(&weights_bytes);
  }
  DT_RETURN_IF_ERROR(communicator.BroadcastBytes(&state_bytes, 0));
  DT_RETURN_IF_ERROR(communicator.BroadcastBytes(&weights_bytes, 0));
  SolverState state;
  NetParameter weights;
  if (!state.ParseFromString(state_bytes) || !weights.ParseFromString(weights_bytes)) {
    return DataLoss(path + ": the solver state received from rank 0 does not parse");
  }
  return solver.Restore(state, state.has_learned_net() ? &weights : nullptr, path);
}

// The data layers of every net read rank r's share of each epoch: the positions r, r + N,
// r + 2N, ..., so that the N batches of an iteration are the batch one process of N times the
// size reads. A layer with a per-rank source (%#) reads all of its own file, and so do the train
// net's layers when `shard_train_net` is false (a per-rank solver brings per-rank data).
void ShardDataLayers(Solver& solver, const Communicator& communicator,
                     const std::set<std::string>& per_rank_sources, bool shard_train_net) {
  std::vector<Net*> nets;
  if (shard_train_net) nets.push_back(&solver.net());
  for (const auto& test_net : solver.test_nets()) nets.push_back(test_net.get());
  for (Net* net : nets) {
    for (const auto& layer : net->layers()) {
      auto* data = dynamic_cast<ShardedSource*>(layer.get());
      if (data && !per_rank_sources.count(layer->name())) {
        data->SetShard(communicator.rank(), communicator.size());
      }
    }
  }
}

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

Status Train(const Flags& flags, Communicator& communicator, const std::string& who) {
  const bool leader = communicator.rank() == 0;
  // A collective that makes no progress means a stopped, dead or unreachable rank, which MPI
  // may wait for forever: report it (naming the ranks not heard from) and end this process,
  // which ends the job.
  DT_ASSIGN_OR_RETURN(int timeout_s, flags.GetInt("collective-timeout"));
  if (timeout_s <= 0) return InvalidArgument("--collective-timeout must be positive");
  std::unique_ptr<ProgressWatchdog> watchdog;
  if (communicator.size() > 1) {
    watchdog = std::make_unique<ProgressWatchdog>(
        std::chrono::seconds(timeout_s),
        [who, &communicator](const std::string& operation, double seconds) {
          std::string missing = communicator.DescribeMissingRanks();
          if (missing.empty()) missing = "none seen (every rank is alive and has reached it)";
          DT_LOG(ERROR) << who << ": " << operation << " has made no progress for " << seconds
                        << " s (--collective-timeout); missing: " << missing
                        << ". Ending the job.";
          std::_Exit(3);
        });
  }
  if (flags.Has("gpu")) DT_LOG(INFO) << "--gpu given; dtrain trains on the CPU.";
  // "%#"/"%*" in --solver name per-rank solver files (dtrain launch --per-worker-files).
  const std::string solver_file =
      ExpandRankPattern(flags.Get("solver"), communicator.rank(), communicator.size());
  DT_ASSIGN_OR_RETURN(SolverParameter param, ReadSolverParameter(solver_file));
  if (flags.Has("iterations")) {
    DT_ASSIGN_OR_RETURN(int max_iter, flags.GetInt("iterations"));
    if (max_iter < 0) {
      return InvalidArgument("--iterations must not be negative, got " + std::to_string(max_iter));
    }
    param.set_max_iter(max_iter);
  }
  // Caffe's rule: no snapshot_prefix means the solver file's path without extension; a prefix
  // naming a directory gets the solver file's name appended.
  const std::filesystem::path solver_path(solver_file);
  if (param.snapshot_prefix().empty()) {
    param.set_snapshot_prefix((solver_path.parent_path() / solver_path.stem()).string());
  } else if (param.snapshot_prefix().back() == '/') {
    param.set_snapshot_prefix(param.snapshot_prefix() + solver_path.stem().string());
  }
  // Only rank 0 writes snapshots; it finds out now if it cannot.
  if (communicator.rank() == 0 && (param.snapshot() > 0 || param.snapshot_after_train())) {
    DT_RETURN_IF_ERROR(PrepareSnapshotOutput(param.snapshot_prefix()));
  }
  if (flags.Has("engine")) {
    DT_RETURN_IF_ERROR(ParseEngine(flags.Get("engine")).status().WithContext("--engine"));
    param.set_engine(flags.Get("engine"));
  }
  if (param.lr_scaling() == SolverParameter::LINEAR && flags.GetBool("global-batch")) {
    return InvalidArgument("lr_scaling: LINEAR scales the rate for a global batch N times the "
                           "solver's; with --global-batch the batch stays the solver's, so the "
                           "two do not go together");
  }
  if (param.lr_scaling() == SolverParameter::LINEAR && communicator.size() > 1) {
    DT_LOG(INFO) << "lr_scaling: LINEAR: base_lr " << param.base_lr() << " x "
                 << communicator.size() << " ranks = " << param.base_lr() * communicator.size();
    param.set_base_lr(param.base_lr() * static_cast<float>(communicator.size()));
  }
  std::set<std::string> per_rank_sources;  // Data layers reading files of their own (%# paths)
  DT_RETURN_IF_ERROR(ExpandRankPatterns(&param, communicator.rank(), communicator.size(),
                                        &per_rank_sources));
  // A solver of its own per rank (dtrain launch --per-worker-files) comes with training data of
  // its own: the train net's data layers then read all of their sources (test nets are shared
  // out as usual).
  const bool per_rank_solver = flags.Get("solver").find("%#") != std::string::npos;
  if (flags.GetBool("global-batch")) {
    DT_ASSIGN_OR_RETURN(std::vector<std::string> split,
                        SplitGlobalBatch(&param, communicator.size()));
    for (const std::string& layer : split) {
      DT_LOG(INFO) << "--global-batch over " << communicator.size() << " rank(s): " << layer;
    }
  }
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(param));
  ShardDataLayers(*solver, communicator, per_rank_sources, /*shard_train_net=*/!per_rank_solver);
  for (int i = 0; i < param.test_iter_size(); ++i) {
    if (param.test_iter(i) % communicator.size() == 0) continue;
    DT_LOG(WARNING) << "test_iter " << param.test_iter(i) << " of test net #" << i
                    << " is not a multiple of the " << communicator.size()
                    << " ranks: a test pass scores as many batches as one process would, but "
                       "not exactly the same images";
  }
  BucketOptions buckets;
  if (flags.Has("bucket-kb")) {
    DT_ASSIGN_OR_RETURN(int kib, flags.GetInt("bucket-kb"));
    if (kib <= 0) return InvalidArgument("--bucket-kb must be positive");
    buckets.bucket_bytes = static_cast<size_t>(kib) << 10;
  }
  std::unique_ptr<Timeline> timeline;
  if (flags.Has("timeline")) {
    DT_ASSIGN_OR_RETURN(timeline, Timeline::Open(TimelinePath(flags.Get("timeline"), communicator),
                                                 communicator.rank()));
    solver->SetTimeline(timeline.get());
  }
  DataParallel data_parallel(communicator, solver->net(), buckets, watchdog.get(), timeline.get());
  if (communicator.size() > 1) {
    DT_LOG(INFO) << "Gradients summed over " << communicator.size() << " ranks in "
                 << data_parallel.num_buckets() << " bucket(s) of up to "
                 << (data_parallel.bucket_bytes() >> 10) << " KiB";
    SolverCollectives collectives;
    collectives.share = communicator.rank();
    collectives.shares = communicator.size();
    collectives.writes_snapshots = leader;  // rank 0 writes the job's snapshots
    collectives.sum = [&communicator, &watchdog](std::vector<double>* values) {
      watchdog->Begin("the sum of test scores or losses over ranks");
      Status status = communicator.AllreduceSum(values->data(), values->size());
      watchdog->End();
      return status.WithContext("summing scores over ranks");
    };
    collectives.exchange_status = [&data_parallel] { return data_parallel.status(); };
    collectives.synchronize_statistics = [&data_parallel] {
      return data_parallel.SynchronizeStatistics();
    };
    collectives.take_wait_seconds = [&data_parallel] { return data_parallel.TakeWaitSeconds(); };
    solver->SetCollectives(std::move(collectives));
  }
  LogEngineChoices(solver->net(), flags.GetBool("verbose"));
  for (const auto& test_net : solver->test_nets()) LogEngineChoices(*test_net, flags.GetBool("verbose"));
  auto signal_actions = InstallSignalActions();
  solver->SetActionSource([&data_parallel, signal_actions]() {
    return data_parallel.AgreeOnAction(signal_actions());
  });

  std::unique_ptr<MetricsFile> metrics;
  if (flags.Has("metrics") && leader) {  // one metrics file, from rank 0
    DT_ASSIGN_OR_RETURN(metrics, MetricsFile::Open(flags.Get("metrics")));
    MetricsFile* m = metrics.get();
    solver->AddDisplayObserver([m](const IterationReport& r) { m->WriteTrain(r); });
    solver->AddTestObserver([m](const TestReport& r) { m->WriteTest(r); });
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
  if (flags.Has("snapshot")) {
    DT_RETURN_IF_ERROR(RestoreOnEveryRank(flags.Get("snapshot"), communicator, *solver));
  } else if (!weights.empty() && leader) {  // the broadcast below gives them to every rank
    DT_RETURN_IF_ERROR(LoadWeights(weights, flags.GetBool("weights-strict"), &solver->net()));
  }
  DT_LOG(INFO) << "Starting Optimization";
  DT_RETURN_IF_ERROR(data_parallel.BroadcastParameters());
  DT_RETURN_IF_ERROR(solver->Solve());
  DT_RETURN_IF_ERROR(data_parallel.status());
  if (tested) {
    // Worded so that Caffe's log parsers (parse_log.sh, parse_log.py) skip it: no "Iteration ",
    // "Test net output", ", loss = " or "lr = ".
    std::ostringstream scores;
    for (const NamedValue& v : last_test.scores) {
      scores << (scores.tellp() > 0 ? ", " : "") << v.name << " " << v.value;
    }
    DT_LOG(INFO) << "Final test scores (net #0, iteration " << last_test.iter
                 << "): " << scores.str();
  }
  return Status::Ok();
}

Status RunTrain(const Flags& flags) {
  if (flags.Get("solver").empty()) return InvalidArgument("--solver is required");
  if (flags.Has("snapshot") && flags.Has("weights")) {
    return InvalidArgument("give --snapshot (resume) or --weights (fine-tune), not both");
  }
  DT_RETURN_IF_ERROR(ApplyThreadsFlag(flags));
  // Started by mpirun or srun: one rank of a data-parallel job (src/dist/); rank 0 leads.
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
  if (status.ok()) status = Train(flags, *communicator, who);
  if (!status.ok() && communicator->size() > 1) {
    // The other ranks would wait for this one in their next collective: end them all now.
    // Rank 0 logs to the console; the others' errors must reach it too.
    if (communicator->rank() != 0) {
      std::fprintf(stderr, "dtrain train: error on %s: %s\n", who.c_str(), status.message().c_str());
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
           {"weights-strict", "with --weights: a layer of the net or of a file with parameters "
                              "and no namesake on the other side is an error", true},
           {"threads", "compute threads; 0 = $OMP_NUM_THREADS if set, else all cores", false, "0"},
           {"iterations", "override the solver's max_iter"},
           {"log-dir", "write every rank's log to DIR/rank_<rank>.log (only rank 0 logs to the "
                       "console)"},
           {"bucket-kb", "data-parallel: gradient bucket size in KiB (default: an eighth of the "
                         "gradients, 1024 to 25600; the first bucket is at most 1024)"},
           {"global-batch", "data-parallel: the train Data layers' batch_size is the job's "
                            "batch, shared evenly by the ranks (default: each rank's own)", true},
           {"collective-timeout", "data-parallel: seconds a collective may make no progress "
                                  "before the job is ended", false, "60"},
           {"metrics", "write one JSON line per display/test event to this file"},
           {"timeline", "write a Chrome trace (chrome://tracing) of forward, backward, update, "
                        "test, each gradient bucket's allreduce and the wait for it to this file "
                        "(F.json; with N ranks F.rank<r>.json each)"},
           {"engine", "force one engine on every layer: onednn or reference (default: each "
                      "layer's own choice)"},
           {"verbose", "list which implementation each layer runs and why others declined", true},
           {"gpu", "accepted for Caffe compatibility; dtrain trains on the CPU"}},
          RunTrain};
}

}  // namespace dtrain
