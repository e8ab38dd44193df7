// Solver: Caffe's training loop over a train net and its test nets.
//
// Each iteration: zero parameter diffs, forward+backward `iter_size` times, then ApplyUpdate
// (the update rule of the subclass: SGD, Nesterov, AdaGrad, RMSProp, AdaDelta, Adam, LAMB). Test
// nets share the train net's weights and run every `test_interval` iterations. Snapshots
// (<prefix>_iter_<N>.caffemodel and .solverstate, Caffe's names) are written atomically; Restore
// continues a run bit for bit, including every layer's random stream and data position.
//
// Progress goes to the log in Caffe's line format and to observers (metrics files, progress
// lines). The solver owns its nets. Not thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/timeline.h"
#include "net/net.h"
#include "proto/solver.pb.h"
#include "solver/snapshot_retention.h"

namespace dtrain {

struct NamedValue {
  std::string name;
  float value;
  float loss_weight;
};

// One display event: what Caffe logs every `display` iterations.
struct IterationReport {
  int iter = 0;
  float loss = 0.f;  // smoothed over average_loss iterations (and averaged over ranks)
  float learning_rate = 0.f;
  double iters_per_second = 0;
  double images_per_second = 0;  // over all ranks
  double seconds_left = 0;
  std::vector<NamedValue> outputs;
  // Data-parallel training: the ranks, and the share of the interval spent waiting for the
  // gradient exchange (0 on one process).
  int ranks = 1;
  double communication_wait_share = 0;
};

// How the processes of a data-parallel job (src/distributed/) share the solver's work. The solver
// knows no ranks or communicator; it calls these. The defaults are one process.
struct SolverCollectives {
  // This process runs test iterations share, share + shares, ... of every test pass.
  int share = 0;
  int shares = 1;
  // Only one process of a job writes the snapshot files.
  bool writes_snapshots = true;
  // Called before each backward pass of an iteration, with true before its last (of iter_size):
  // the gradients are complete only after that one, and are exchanged then, once per iteration.
  std::function<void(bool last_pass)> before_backward;
  // Whether the gradients were exchanged; checked after backward, before the update, so that a
  // failed exchange stops training before any process applies its own gradient.
  std::function<Status()> exchange_status;
  // Element-wise sum over the processes, on every one (test scores, displayed losses).
  std::function<Status(std::vector<double>*)> sum;
  // Makes layer statistics that each process gathers alone (BatchNorm's) the same everywhere;
  // called before each test pass and snapshot.
  std::function<Status()> synchronize_statistics;
  // Seconds spent waiting for communication since the last call.
  std::function<double()> take_wait_seconds;
};

// One test pass of test net `net_id`.
struct TestReport {
  int iter = 0;
  int net_id = 0;
  std::vector<NamedValue> scores;
};

// What an outside request (a signal, in `dtrain train`) asks the loop to do between iterations.
enum class SolverAction { kNone, kSnapshot, kStop };

class Solver {
 public:
  using DisplayObserver = std::function<void(const IterationReport&)>;
  using TestObserver = std::function<void(const TestReport&)>;

  virtual ~Solver() = default;

  // Trains until max_iter, then snapshots (snapshot_after_train) and tests once more.
  Status Solve();
  Status Step(int iters);
  // Resumes from a .solverstate written by Snapshot (also Caffe's).
  Status Restore(const std::string& solverstate_path);
  // The same from a state already read, with the weights it names (null: keep the net's);
  // `origin` names where it came from in errors.
  Status Restore(const SolverState& state, const NetParameter* weights, const std::string& origin);
  // Writes <prefix>_iter_<iter>.caffemodel and .solverstate atomically.
  Status Snapshot();
  StatusOr<std::vector<TestReport>> TestAll();
  StatusOr<TestReport> Test(int test_net_id);
  // Test with eval_type "detection": the mAP of each DetectionEvaluate output.
  StatusOr<TestReport> TestDetection(int test_net_id);

  void AddDisplayObserver(DisplayObserver o) { display_observers_.push_back(std::move(o)); }
  void AddTestObserver(TestObserver o) { test_observers_.push_back(std::move(o)); }
  // Polled after every iteration: kSnapshot writes a snapshot and goes on; kStop ends training
  // early (Solve then snapshots as at the end, like Caffe on SIGINT).
  void SetActionSource(std::function<SolverAction()> source) { action_source_ = std::move(source); }
  // Data-parallel training: test passes are split over the processes and their scores summed;
  // one writes snapshot files (every one takes part in synchronising statistics first).
  void SetCollectives(SolverCollectives collectives) { collectives_ = std::move(collectives); }
  // Records forward, backward, update and test passes (optional; outlives the solver's use).
  void SetTimeline(Timeline* timeline) { timeline_ = timeline; }

  Net& net() { return *net_; }
  const std::vector<std::unique_ptr<Net>>& test_nets() const { return test_nets_; }
  const SolverParameter& param() const { return param_; }
  int iter() const { return iter_; }
  virtual const char* type() const = 0;

 protected:
  explicit Solver(const SolverParameter& param)
      : param_(param), retention_(param.snapshot_prefix(), param.snapshot_keep()) {}
  Status Init();

  // The subclass's update: turns the accumulated diffs into steps and applies them.
  virtual void ApplyUpdate() = 0;
  virtual void SnapshotSolverState(SolverState* state) const = 0;
  virtual Status RestoreSolverState(const SolverState& state) = 0;

  SolverParameter param_;
  int iter_ = 0;
  int current_step_ = 0;  // multistep's or plateau's step
  std::unique_ptr<Net> net_;
  std::vector<std::unique_ptr<Net>> test_nets_;

 private:
  Status InitTrainNet();
  Status InitTestNets();
  void UpdateSmoothedLoss(float loss, int start_iter, int average_loss);
  // The plateau policy, once per iteration before the update: a new minimum of the smoothed loss
  // (averaged over the processes, so that every one steps at the same iteration) or, after
  // plateau_winsize[step] iterations without one, the next step.
  Status AdvancePlateau();
  // Whether a test pass is due at this iteration (test_interval, test_offset).
  bool TestDue() const;
  Status Display(double seconds_for_interval, int iters_in_interval);
  // The error that stops a diverged run: `what` went wrong at this iteration, with the first
  // non-finite value found in the net (solver/divergence.h) and what to do about it.
  Status Diverged(const std::string& what) const;
  // Element-wise mean over the processes of a data-parallel job (identity on one process).
  Status AverageOverProcesses(std::vector<double>* values);
  std::string SnapshotFilename(const std::string& extension) const;

  std::vector<float> losses_;
  float smoothed_loss_ = 0.f;
  // The plateau policy's lowest smoothed loss (over the processes) and the iteration of its last
  // new minimum or step, as Intel Caffe keeps them (saved in the .solverstate).
  float minimum_loss_ = std::numeric_limits<float>::max();
  int iter_last_event_ = 0;
  int images_per_iteration_ = 0;
  int max_iter_for_eta_ = 0;
  std::vector<DisplayObserver> display_observers_;
  std::vector<TestObserver> test_observers_;
  std::function<SolverAction()> action_source_;
  bool stopped_early_ = false;
  SolverCollectives collectives_;
  Timeline* timeline_ = nullptr;
  SnapshotRetention retention_;  // snapshot_keep over this run's own snapshots
};

// Creates the solver named by `type` (or the legacy `solver_type`), validating the parameters.
StatusOr<std::unique_ptr<Solver>> CreateSolver(const SolverParameter& param);

}  // namespace dtrain
