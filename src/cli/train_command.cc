// dtrain train: Caffe's `caffe train`.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include <unistd.h>

#include "cli/command.h"
#include "cli/metrics_file.h"
#include "cli/net_loading.h"
#include "cli/signal_actions.h"
#include "dist/communicator.h"
#include "dist/data_parallel.h"
#include "dist/progress_watchdog.h"
#include "dist/rank_paths.h"
#include "layers/data_layer.h"
#include "core/logging.h"
#include "core/proto_io.h"
#include "solver/solver.h"

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

// --weights takes a comma-separated list of .caffemodel files, as Caffe does.
Status CopyWeights(const std::string& list, Net& net) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string path = list.substr(start, comma == std::string::npos ? std::string::npos
                                                                            : comma - start);
    if (!path.empty()) {
      NetParameter weights;
      DT_RETURN_IF_ERROR(ReadBinaryProto(path, &weights));
      DT_RETURN_IF_ERROR(net.CopyTrainedLayersFrom(weights).WithContext(path));
      DT_LOG(INFO) << "Copied weights from " << path;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
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
  const bool leader = communicator->rank() == 0;
  if (!leader) SetLogToStderr(false);
  if (flags.Has("log-dir")) {  // every rank's full log, rank 0's included
    const std::string dir = flags.Get("log-dir");
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    const std::string path = dir + "/rank_" + std::to_string(communicator->rank()) + ".log";
    if (error || !SetLogFile(path)) return IoError("--log-dir: cannot write " + path);
  }
  char host[256] = "?";
  gethostname(host, sizeof(host) - 1);
  const std::string who = "rank " + std::to_string(communicator->rank()) + " of " +
                          std::to_string(communicator->size()) + " (host " + host + ", pid " +
                          std::to_string(getpid()) + ")";
  if (communicator->size() > 1) {
    DT_LOG(INFO) << "Data-parallel: " << communicator->description() << "; this is " << who;
  }
  // A collective that makes no progress means a stopped, dead or unreachable rank, which MPI
  // may wait for forever: report it and end this process, which ends the job.
  DT_ASSIGN_OR_RETURN(int timeout_s, flags.GetInt("collective-timeout"));
  if (timeout_s <= 0) return InvalidArgument("--collective-timeout must be positive");
  std::unique_ptr<ProgressWatchdog> watchdog;
  if (communicator->size() > 1) {
    watchdog = std::make_unique<ProgressWatchdog>(
        std::chrono::seconds(timeout_s), [who](const std::string& operation, double seconds) {
          DT_LOG(ERROR) << who << ": " << operation << " has made no progress for " << seconds
                        << " s (--collective-timeout); another rank is stopped, dead or "
                           "unreachable. Ending the job.";
          std::_Exit(3);
        });
  }
  if (flags.Has("gpu")) DT_LOG(INFO) << "--gpu given; dtrain trains on the CPU.";
  SolverParameter param;
  DT_RETURN_IF_ERROR(ReadTextProto(flags.Get("solver"), &param));
  if (flags.Has("iterations")) {
    DT_ASSIGN_OR_RETURN(int max_iter, flags.GetInt("iterations"));
    param.set_max_iter(max_iter);
  }
  // Caffe's rule: no snapshot_prefix means the solver file's path without extension; a prefix
  // naming a directory gets the solver file's name appended.
  const std::filesystem::path solver_path(flags.Get("solver"));
  if (param.snapshot_prefix().empty()) {
    param.set_snapshot_prefix((solver_path.parent_path() / solver_path.stem()).string());
  } else if (param.snapshot_prefix().back() == '/') {
    param.set_snapshot_prefix(param.snapshot_prefix() + solver_path.stem().string());
  }
  if (flags.Has("engine")) {
    DT_RETURN_IF_ERROR(ParseEngine(flags.Get("engine")).status().WithContext("--engine"));
    param.set_engine(flags.Get("engine"));
  }
  std::set<std::string> per_rank_sources;  // Data layers reading files of their own (%# paths)
  DT_RETURN_IF_ERROR(ExpandRankPatterns(&param, communicator->rank(), communicator->size(),
                                        &per_rank_sources));
  if (!leader) {  // rank 0 alone writes snapshots
    param.set_snapshot(0);
    param.set_snapshot_after_train(false);
  }
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(param));
  // Each rank reads its own records of every epoch: rank r the positions r, r + N, r + 2N, ...,
  // so that the N batches of an iteration are the batch one process of N times the size reads.
  // A layer with a per-rank source reads all of its own file.
  for (const auto& layer : solver->net().layers()) {
    auto* data = dynamic_cast<DataLayer*>(layer.get());
    if (data && !per_rank_sources.count(layer->name())) {
      data->SetShard(communicator->rank(), communicator->size());
    }
  }
  BucketOptions buckets;
  if (flags.Has("bucket-kb")) {
    DT_ASSIGN_OR_RETURN(int kib, flags.GetInt("bucket-kb"));
    if (kib <= 0) return InvalidArgument("--bucket-kb must be positive");
    buckets.bucket_bytes = static_cast<size_t>(kib) << 10;
    buckets.first_bucket_bytes = std::min(buckets.first_bucket_bytes, buckets.bucket_bytes);
  }
  DataParallel data_parallel(*communicator, solver->net(), buckets, watchdog.get());
  if (communicator->size() > 1) {
    DT_LOG(INFO) << "Gradients summed over " << communicator->size() << " ranks in "
                 << data_parallel.num_buckets() << " bucket(s) of up to "
                 << (buckets.bucket_bytes >> 10) << " KiB";
  }
  LogEngineChoices(solver->net(), flags.GetBool("verbose"));
  for (const auto& test_net : solver->test_nets()) LogEngineChoices(*test_net, flags.GetBool("verbose"));
  auto signal_actions = InstallSignalActions();
  solver->SetActionSource([&data_parallel, signal_actions]() {
    return data_parallel.status().ok() ? signal_actions() : SolverAction::kStop;
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

  if (flags.Has("snapshot")) {
    DT_RETURN_IF_ERROR(solver->Restore(flags.Get("snapshot")));
  } else if (flags.Has("weights")) {
    DT_RETURN_IF_ERROR(CopyWeights(flags.Get("weights"), solver->net()));
  }
  DT_LOG(INFO) << "Starting Optimization";
  DT_RETURN_IF_ERROR(data_parallel.BroadcastParameters());
  DT_RETURN_IF_ERROR(solver->Solve());
  DT_RETURN_IF_ERROR(data_parallel.status());
  if (tested) {
    std::string scores;
    for (const NamedValue& v : last_test.scores) {
      scores += (scores.empty() ? "" : ", ") + v.name + " = " + std::to_string(v.value);
    }
    DT_LOG(INFO) << "Final test (iteration " << last_test.iter << "): " << scores;
  }
  return Status::Ok();
}

}  // namespace

Command TrainCommand() {
  return {"train",
          "train a net with a Caffe solver prototxt",
          "",
          {{"solver", "solver prototxt"},
           {"snapshot", "resume from this .solverstate"},
           {"weights", "initialise from these .caffemodel files (comma-separated)"},
           {"threads", "compute threads; 0 = $OMP_NUM_THREADS if set, else all cores", false, "0"},
           {"iterations", "override the solver's max_iter"},
           {"log-dir", "write every rank's log to DIR/rank_<rank>.log (only rank 0 logs to the "
                       "console)"},
           {"bucket-kb", "data-parallel: gradient bucket size in KiB (default 25600; the first "
                         "bucket is at most 1024)"},
           {"collective-timeout", "data-parallel: seconds a collective may make no progress "
                                  "before the job is ended", false, "60"},
           {"metrics", "write one JSON line per display/test event to this file"},
           {"engine", "force one engine on every layer: onednn or reference (default: each "
                      "layer's own choice)"},
           {"verbose", "list which implementation each layer runs and why others declined", true},
           {"gpu", "accepted for Caffe compatibility; dtrain trains on the CPU"}},
          RunTrain};
}

}  // namespace dtrain
