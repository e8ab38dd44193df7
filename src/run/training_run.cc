#include "run/training_run.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "core/logging.h"
#include "core/output_guard.h"
#include "distributed/communicator.h"
#include "distributed/trainer.h"
#include "report/metrics_file.h"
#include "report/tensorboard_events.h"
#include "run/signal_actions.h"
#include "solver/initial_weights.h"
#include "solver/multi_phase.h"
#include "solver/net_loading.h"
#include "solver/snapshot_output.h"
#include "solver/solver.h"
#include "solver/timed_snapshots.h"

namespace dtrain {

namespace {

// Every rank's full log in DIR/rank_<rank>.log, rank 0's included.
Status OpenRankLog(const std::string& dir, const Communicator& communicator) {
  if (dir.empty()) return Status::Ok();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string path = dir + "/rank_" + std::to_string(communicator.rank()) + ".log";
  if (error || !SetLogFile(path)) return IoError("--log-dir: cannot write " + path);
  return Status::Ok();
}

// A timeline F.json: with several ranks each writes its own file, F.rank<r>.json (or F with %#
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

// Trains the solver file, or one phase of it when `phase` is given.
Status TrainPhase(const TrainingRunOptions& options, Communicator& communicator,
                  const std::string& who, TrainingPhase* phase) {
  const bool leader = communicator.rank() == 0;
  TrainerOptions trainer_options;
  trainer_options.who = who;
  // A collective that makes no progress means a stopped, dead or unreachable rank, which MPI
  // may wait for forever: the trainer reports it and ends this process, which ends the job.
  trainer_options.collective_timeout = options.collective_timeout;
  if (options.bucket_bytes > 0) trainer_options.buckets.bucket_bytes = options.bucket_bytes;
  JobRequest request = options.job;
  if (phase) request.solver = phase->solver;
  request.rank = communicator.rank();
  request.world = communicator.size();
  DT_ASSIGN_OR_RETURN(RankJob job, ResolveRankJob(request));
  DT_LOG(INFO) << DescribeRankJob(job, request);
  for (const std::string& change : job.changes) DT_LOG(INFO) << change;
  const SolverParameter& param = job.solver;
  // Only rank 0 writes snapshots; it finds out now if it cannot.
  if (leader) DT_RETURN_IF_ERROR(PrepareSnapshotOutputOf(param));
  trainer_options.per_rank_sources = job.per_rank_sources;
  trainer_options.shard_train_net = job.shard_train_net;
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(param));
  for (int i = 0; i < param.test_iter_size(); ++i) {
    if (param.test_iter(i) % communicator.size() == 0) continue;
    DT_LOG(WARNING) << "test_iter " << param.test_iter(i) << " of test net #" << i
                    << " is not a multiple of the " << communicator.size()
                    << " ranks: a test pass scores as many batches as one process would, but "
                       "not exactly the same images";
  }
  std::unique_ptr<Timeline> timeline;
  if (!options.timeline_path.empty()) {
    DT_ASSIGN_OR_RETURN(timeline, Timeline::Open(TimelinePath(options.timeline_path, communicator),
                                                 communicator.rank()));
    solver->SetTimeline(timeline.get());
    trainer_options.timeline = timeline.get();
  }
  Trainer trainer(*solver, communicator, std::move(trainer_options));
  LogEngineChoices(solver->net(), options.verbose);
  for (const auto& test_net : solver->test_nets()) LogEngineChoices(*test_net, options.verbose);
  std::function<SolverAction()> signals = [] { return SolverAction::kNone; };
  if (options.handle_signals) signals = InstallSignalActions(who);
  trainer.SetActionSource(
      WithTimedSnapshots(std::move(signals), param.snapshot_interval_s(), leader));

  const std::vector<NamedPath> inputs = {{"the --solver", options.job.solver_path},
                                         {"the --snapshot", options.snapshot},
                                         {"the --weights", options.weights},
                                         {"the solver's net", param.net()},
                                         {"the solver's train_net", param.train_net()}};
  if (!options.metrics_path.empty()) {
    DT_RETURN_IF_ERROR(RefuseOutputOverInput("--metrics", options.metrics_path, inputs));
  }
  std::unique_ptr<MetricsFile> metrics;
  if (!options.metrics_path.empty() && leader) {  // one metrics file, from rank 0
    DT_ASSIGN_OR_RETURN(
        metrics, MetricsFile::Open(options.metrics_path,
                                   options.restart_count > 0 || (phase && phase->index > 0)));
    MetricsFile* m = metrics.get();
    solver->AddDisplayObserver([m](const IterationReport& r) { m->WriteTrain(r); });
    solver->AddTestObserver([m](const TestReport& r) { m->WriteTest(r); });
  }
  std::unique_ptr<TensorBoardEvents> tensorboard;
  if (!options.tensorboard_dir.empty() && leader) {  // one run directory, from rank 0
    DT_ASSIGN_OR_RETURN(tensorboard, TensorBoardEvents::Open(options.tensorboard_dir));
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

  const InitialWeights initial = ChooseInitialWeights(param, options.weights, options.snapshot);
  if (!initial.note.empty()) DT_LOG(INFO) << initial.note;
  if (phase && phase->index > 0) {  // every rank holds the weights the last phase ended with
    DT_RETURN_IF_ERROR(solver->net().CopyTrainedLayersFrom(phase->weights));
  } else if (!options.snapshot.empty()) {
    DT_RETURN_IF_ERROR(trainer.Restore(options.snapshot));
  } else if (!initial.weights.empty() && leader) {  // the Trainer's broadcast gives them to all
    DT_RETURN_IF_ERROR(LoadWeights(initial.weights, options.weights_strict, &solver->net()));
  }
  if (options.restart_count > 0) {
    const std::string& reason = options.restart_reason;
    DT_LOG(INFO) << "Restart " << options.restart_count << " of this job, on "
                 << communicator.size() << " rank(s), resuming from iteration " << solver->iter()
                 << (reason.empty() ? "" : ": ") << reason;
    if (metrics) {
      metrics->WriteRestart(options.restart_count, solver->iter(), communicator.size(), reason);
    }
    if (tensorboard) tensorboard->WriteRestart(options.restart_count, solver->iter());
  }
  DT_LOG(INFO) << "Starting Optimization";
  DT_RETURN_IF_ERROR(trainer.Solve());
  if (phase) solver->net().ToProto(&phase->weights);
  if (tested) {
    DT_LOG(INFO) << LastTestLine(last_test, solver->iter(), param.test_interval(),
                                 param.test_offset());
  }
  // Training is done and its snapshots are written; an output that lost records still fails the
  // run, so that a job never ends with an incomplete record in silence.
  if (metrics) DT_RETURN_IF_ERROR(metrics->status());
  if (tensorboard) DT_RETURN_IF_ERROR(tensorboard->status());
  if (timeline) DT_RETURN_IF_ERROR(timeline->status());
  return Status::Ok();
}

}  // namespace

Status RunTraining(const TrainingRunOptions& options, Communicator& communicator,
                   const std::string& who) {
  const std::string& solver_path = options.job.solver_path;
  DT_ASSIGN_OR_RETURN(const std::optional<std::vector<SolverParameter>> phases,
                      ReadSolverPhases(solver_path));
  if (!phases) return TrainPhase(options, communicator, who, nullptr);
  if (!options.snapshot.empty()) {
    return InvalidArgument(
        "--snapshot resumes one solver; " + solver_path +
        " is a multi-phase file (Intel Caffe's): train its phases from the start, or resume a "
        "phase's snapshot with a solver file of that phase");
  }
  TrainingPhase phase;
  for (size_t j = 0; j < phases->size(); ++j) {
    DT_LOG(INFO) << "Phase " << j << " of " << phases->size() << " of " << solver_path
                 << " (Intel Caffe's multi-phase training), snapshot_prefix "
                 << (*phases)[j].snapshot_prefix();
    phase.solver = (*phases)[j];
    phase.index = static_cast<int>(j);
    DT_RETURN_IF_ERROR(
        TrainPhase(options, communicator, who, &phase).WithContext("phase " + std::to_string(j)));
  }
  return Status::Ok();
}

Status RunTrainingJob(const TrainingRunOptions& options) {
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
  Status status = OpenRankLog(options.log_dir, *communicator);
  if (status.ok() && communicator->size() > 1) {
    DT_LOG(INFO) << "Data-parallel: " << communicator->description() << "; this is " << who;
  }
  if (status.ok()) status = RunTraining(options, *communicator, who);
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

}  // namespace dtrain
