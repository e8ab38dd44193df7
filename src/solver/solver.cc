#include "solver/solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/logging.h"
#include "core/proto_checksum.h"
#include "core/proto_io.h"
#include "net/read_net.h"
#include "solver/detection_scores.h"
#include "solver/divergence.h"
#include "solver/hdf5_snapshot.h"
#include "solver/lr_policy.h"
#include "solver/snapshot_pair.h"
#include "solver/snapshot_retention.h"
#include "solver/solver_param_checks.h"

namespace dtrain {
namespace {

using Clock = std::chrono::steady_clock;

StatusOr<NetParameter> LoadNet(const std::string& path) { return ReadNetParameter(path); }

// The number of images one forward pass consumes: the batch dimension of the first layer's top.
int BatchSize(const Net& net) {
  if (net.top_vecs().empty() || net.top_vecs()[0].empty()) return 0;
  const Tensor* t = net.top_vecs()[0][0];
  return t->num_axes() > 0 ? t->shape(0) : 1;
}

std::string FormatSeconds(double s) {
  char buf[32];
  const long total = static_cast<long>(s + 0.5);
  if (total >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ldh%02ldm", total / 3600, (total % 3600) / 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ldm%02lds", total / 60, total % 60);
  }
  return buf;
}

}  // namespace

Status Solver::Init() {
  if (param_.solver_mode() == SolverParameter::GPU) {
    DT_LOG(INFO) << "solver_mode: GPU requested; dtrain trains on the CPU.";
  }
  DT_RETURN_IF_ERROR(ValidateSolverParameter(param_));
  DT_RETURN_IF_ERROR(InitTrainNet());
  DT_RETURN_IF_ERROR(InitTestNets());
  images_per_iteration_ = BatchSize(*net_) * param_.iter_size();
  return Status::Ok();
}

Status Solver::InitTrainNet() {
  const int sources = param_.has_net() + param_.has_net_param() + param_.has_train_net() +
                      param_.has_train_net_param();
  if (sources != 1) {
    return InvalidArgument(
        "the solver must name exactly one train net (net, net_param, "
        "train_net or train_net_param); it names " +
        std::to_string(sources));
  }
  NetParameter net_param;
  if (param_.has_train_net_param()) {
    net_param = param_.train_net_param();
  } else if (param_.has_net_param()) {
    net_param = param_.net_param();
  } else {
    const std::string path = param_.has_train_net() ? param_.train_net() : param_.net();
    DT_LOG(INFO) << "Creating training net from file: " << path;
    DT_ASSIGN_OR_RETURN(net_param, LoadNet(path));
  }
  NetState state;
  state.set_phase(TRAIN);
  state.MergeFrom(net_param.state());
  state.MergeFrom(param_.train_state());
  state.set_phase(TRAIN);
  // Intel Caffe's solver engine replaces the net's own (the engine of layers that name none).
  if (!param_.engine().empty()) net_param.set_engine(param_.engine());
  DT_ASSIGN_OR_RETURN(
      net_, Net::Create(net_param, state, param_.random_seed() < 0 ? 1701 : param_.random_seed(),
                        param_.forced_engine()));
  return Status::Ok();
}

Status Solver::InitTestNets() {
  std::vector<NetParameter> sources;
  for (const NetParameter& p : param_.test_net_param()) sources.push_back(p);
  for (const std::string& path : param_.test_net()) {
    DT_ASSIGN_OR_RETURN(NetParameter p, LoadNet(path));
    sources.push_back(p);
  }
  const int explicit_nets = static_cast<int>(sources.size());
  const int general_nets = param_.has_net() || param_.has_net_param();
  int total = explicit_nets;
  if (general_nets) {
    // The general net doubles as test net(s): one per test_iter beyond the explicit ones.
    total = std::max(explicit_nets, param_.test_iter_size());
    NetParameter general;
    if (param_.has_net_param()) {
      general = param_.net_param();
    } else {
      DT_ASSIGN_OR_RETURN(general, LoadNet(param_.net()));
    }
    while (static_cast<int>(sources.size()) < total) sources.push_back(general);
  }
  if (param_.test_iter_size() != total) {
    return InvalidArgument("test_iter must be given once per test net: " + std::to_string(total) +
                           " test net(s), " + std::to_string(param_.test_iter_size()) +
                           " test_iter value(s)");
  }
  if (param_.test_state_size() > 0 && param_.test_state_size() != total) {
    return InvalidArgument("test_state must be given once per test net");
  }
  if (total > 0 && param_.test_interval() <= 0) {
    return InvalidArgument("test nets are given, so test_interval must be positive");
  }
  const uint64_t seed = param_.random_seed() < 0 ? 1701 : param_.random_seed();
  for (int i = 0; i < total; ++i) {
    NetState state;
    state.set_phase(TEST);
    state.MergeFrom(sources[i].state());
    if (param_.test_state_size() > 0) state.MergeFrom(param_.test_state(i));
    state.set_phase(TEST);
    DT_LOG(INFO) << "Creating test net (#" << i << ")";
    if (!param_.engine().empty()) sources[i].set_engine(param_.engine());
    DT_ASSIGN_OR_RETURN(auto net, Net::Create(sources[i], state, DeriveSeed(seed, 1000 + i),
                                              param_.forced_engine()));
    DT_RETURN_IF_ERROR(net->ShareTrainedLayersWith(*net_));
    test_nets_.push_back(std::move(net));
  }
  return Status::Ok();
}

Status Solver::Solve() {
  DT_LOG(INFO) << "Solving " << net_->name();
  DT_LOG(INFO) << "Learning Rate Policy: " << param_.lr_policy();
  const int start_iter = iter_;
  DT_RETURN_IF_ERROR(Step(param_.max_iter() - iter_));
  if (param_.snapshot_after_train() && (param_.snapshot() == 0 || iter_ % param_.snapshot() != 0)) {
    DT_RETURN_IF_ERROR(Snapshot());
  }
  if (stopped_early_) {
    DT_LOG(INFO) << "Optimization stopped early.";
    return Status::Ok();
  }
  // As Caffe: the loss at the final weights (one forward pass, no update; the snapshot above is
  // already written) and a final test when the schedule ends on a display and a test.
  if (param_.display() && iter_ % param_.display() == 0) {
    DT_ASSIGN_OR_RETURN(float loss, net_->Forward());
    UpdateSmoothedLoss(loss, start_iter, param_.average_loss());
    std::vector<double> smoothed = {smoothed_loss_};
    DT_RETURN_IF_ERROR(AverageOverProcesses(&smoothed));
    DT_LOG(INFO) << "Iteration " << iter_ << ", loss = " << static_cast<float>(smoothed[0]);
  }
  if (TestDue()) DT_RETURN_IF_ERROR(TestAll().status());
  DT_LOG(INFO) << "Optimization Done.";
  return Status::Ok();
}

Status Solver::Step(int iters) {
  const int start_iter = iter_;
  const int stop_iter = iter_ + iters;
  // The time left is to max_iter; without one (py-faster-rcnn's solvers), to this call's end.
  max_iter_for_eta_ = param_.max_iter() > 0 ? param_.max_iter() : stop_iter;
  losses_.clear();
  smoothed_loss_ = 0.f;
  auto interval_start = Clock::now();
  int interval_iters = 0;
  while (iter_ < stop_iter) {
    net_->ClearParamDiffs();
    if (TestDue() && (iter_ > 0 || param_.test_initialization()) && !test_nets_.empty()) {
      DT_RETURN_IF_ERROR(TestAll().status());
      interval_start = Clock::now();  // test time is not training throughput
      interval_iters = 0;
    }
    float loss = 0.f;
    for (int i = 0; i < param_.iter_size(); ++i) {
      const auto forward_start = Timeline::Clock::now();
      DT_ASSIGN_OR_RETURN(float l, net_->Forward());
      const auto backward_start = Timeline::Clock::now();
      if (collectives_.before_backward) collectives_.before_backward(i + 1 == param_.iter_size());
      net_->Backward();
      DT_RETURN_IF_ERROR(net_->TakeBackwardError());
      if (timeline_) {
        timeline_->Add("forward", Timeline::kTraining, forward_start, backward_start);
        timeline_->Add("backward", Timeline::kTraining, backward_start, Timeline::Clock::now());
      }
      loss += l;
    }
    if (collectives_.exchange_status) DT_RETURN_IF_ERROR(collectives_.exchange_status());
    loss /= static_cast<float>(param_.iter_size());
    // Before the update, so that the weights stay those that gave a finite loss.
    if (!std::isfinite(loss)) {
      const char* value = std::isnan(loss) ? "nan" : loss > 0 ? "inf" : "-inf";
      return Diverged(std::string("the loss is ") + value);
    }
    UpdateSmoothedLoss(loss, start_iter, param_.average_loss());
    ++interval_iters;
    if (param_.display() && iter_ % param_.display() == 0) {
      if (const std::string weights = DivergedWeights(*net_); !weights.empty()) {
        return Diverged(weights);
      }
      const double seconds = std::chrono::duration<double>(Clock::now() - interval_start).count();
      DT_RETURN_IF_ERROR(Display(seconds, interval_iters));
      interval_start = Clock::now();
      interval_iters = 0;
    }
    if (param_.lr_policy() == "plateau") DT_RETURN_IF_ERROR(AdvancePlateau());
    const auto update_start = Timeline::Clock::now();
    if (!param_.disabled_update()) ApplyUpdate();
    if (timeline_)
      timeline_->Add("update", Timeline::kTraining, update_start, Timeline::Clock::now());
    ++iter_;
    const SolverAction action = action_source_ ? action_source_() : SolverAction::kNone;
    if ((param_.snapshot() && iter_ % param_.snapshot() == 0) ||
        action == SolverAction::kSnapshot) {
      DT_RETURN_IF_ERROR(Snapshot());
    }
    if (action == SolverAction::kStop) {
      stopped_early_ = true;
      break;
    }
  }
  return Status::Ok();
}

bool Solver::TestDue() const {
  // C++'s remainder, as Intel Caffe's: before test_offset, (iter - test_offset) is negative.
  return param_.test_interval() > 0 && (iter_ - param_.test_offset()) % param_.test_interval() == 0;
}

Status Solver::AdvancePlateau() {
  std::vector<double> smoothed = {smoothed_loss_};
  DT_RETURN_IF_ERROR(AverageOverProcesses(&smoothed));
  const float loss = static_cast<float>(smoothed[0]);
  if (loss < minimum_loss_) {
    minimum_loss_ = loss;
    iter_last_event_ = iter_;
  }
  if (current_step_ < param_.plateau_winsize_size() &&
      iter_ >= iter_last_event_ + param_.plateau_winsize(current_step_)) {
    ++current_step_;
    iter_last_event_ = iter_;
    DT_LOG(INFO) << "Plateau Status: Iteration " << iter_ << ", step = " << current_step_;
  }
  if (param_.display() && iter_ % param_.display() == 0 &&
      iter_last_event_ > iter_ - param_.display()) {
    DT_LOG(INFO) << "Plateau Status: Iteration " << iter_
                 << ", current minimum_loss = " << minimum_loss_;
  }
  return Status::Ok();
}

void Solver::UpdateSmoothedLoss(float loss, int start_iter, int average_loss) {
  if (static_cast<int>(losses_.size()) < average_loss) {
    losses_.push_back(loss);
    const int n = static_cast<int>(losses_.size());
    smoothed_loss_ = (smoothed_loss_ * (n - 1) + loss) / n;
  } else {
    const int idx = (iter_ - start_iter) % average_loss;
    smoothed_loss_ += (loss - losses_[idx]) / average_loss;
    losses_[idx] = loss;
  }
}

Status Solver::AverageOverProcesses(std::vector<double>* values) {
  if (collectives_.shares == 1) return Status::Ok();
  DT_RETURN_IF_ERROR(collectives_.sum(values));
  for (double& v : *values) v /= collectives_.shares;
  return Status::Ok();
}

Status Solver::Display(double seconds, int iters) {
  // The loss and outputs shown are the means over processes: the global batch's.
  std::vector<double> values = {smoothed_loss_};
  for (int id : net_->output_blob_indices()) {
    const Tensor* blob = net_->blob(id);
    values.insert(values.end(), blob->data(), blob->data() + blob->count());
  }
  DT_RETURN_IF_ERROR(AverageOverProcesses(&values));
  IterationReport report;
  report.iter = iter_;
  report.loss = static_cast<float>(values[0]);
  report.learning_rate = LearningRate(param_, iter_, current_step_);
  report.iters_per_second = seconds > 0 ? iters / seconds : 0;
  report.ranks = collectives_.shares;
  report.images_per_second = report.iters_per_second * images_per_iteration_ * report.ranks;
  // A script may step past max_iter (py-faster-rcnn's solvers have none): nothing is left then.
  const bool before_end = iter_ <= max_iter_for_eta_;
  report.seconds_left = report.iters_per_second > 0 && before_end
                            ? (max_iter_for_eta_ - iter_) / report.iters_per_second
                            : 0;
  char rates[256];
  int used = std::snprintf(rates, sizeof(rates), "%.4g iter/s, %.4gs/%d iters, %.1f img/s",
                           report.iters_per_second, seconds, iters, report.images_per_second);
  if (report.ranks > 1) {
    const double waited = collectives_.take_wait_seconds ? collectives_.take_wait_seconds() : 0;
    report.communication_wait_share = seconds > 0 ? std::min(1.0, waited / seconds) : 0;
    used += std::snprintf(rates + used, sizeof(rates) - used,
                          " (%d ranks x %.1f), %.0f%% waiting for gradients", report.ranks,
                          report.images_per_second / report.ranks,
                          100 * report.communication_wait_share);
  }
  if (before_end) {
    std::snprintf(rates + used, sizeof(rates) - used, ", %s left",
                  FormatSeconds(report.seconds_left).c_str());
  }
  DT_LOG(INFO) << "Iteration " << iter_ << " (" << rates << "), loss = " << report.loss;
  int score_index = 0;
  size_t k = 1;
  for (int id : net_->output_blob_indices()) {
    const Tensor* blob = net_->blob(id);
    const float w = net_->blob_loss_weight(id);
    for (int64_t j = 0; j < blob->count(); ++j, ++k) {
      const float v = static_cast<float>(values[k]);
      DT_LOG(INFO) << "    Train net output #" << score_index++ << ": " << net_->blob_names()[id]
                   << " = " << v << LossWeightSuffix(w, v);
      report.outputs.push_back({net_->blob_names()[id], v, w});
    }
  }
  DT_LOG(INFO) << "Iteration " << iter_ << ", lr = " << report.learning_rate;
  for (const auto& o : display_observers_) o(report);
  return Status::Ok();
}

StatusOr<std::vector<TestReport>> Solver::TestAll() {
  std::vector<TestReport> reports;
  if (collectives_.synchronize_statistics)
    DT_RETURN_IF_ERROR(collectives_.synchronize_statistics());
  for (int i = 0; i < static_cast<int>(test_nets_.size()); ++i) {
    const auto start = Timeline::Clock::now();
    DT_ASSIGN_OR_RETURN(TestReport r, Test(i));
    if (timeline_) timeline_->Add("test", Timeline::kTraining, start, Timeline::Clock::now());
    reports.push_back(r);
  }
  return reports;
}

StatusOr<TestReport> Solver::Test(int test_net_id) {
  DT_LOG(INFO) << "Iteration " << iter_ << ", Testing net (#" << test_net_id << ")";
  if (param_.eval_type() == "detection") return TestDetection(test_net_id);
  Net& net = *test_nets_[test_net_id];
  // Sums of the test loss and of every output element. In a data-parallel job, process r runs
  // the iterations r, r + N, ... (its data layers read the matching records) and the sums are
  // added.
  size_t outputs = 0;
  for (int id : net.output_blob_indices()) outputs += static_cast<size_t>(net.blob(id)->count());
  std::vector<double> sums(outputs + 1, 0.0);
  const int iterations = param_.test_iter(test_net_id);
  for (int i = collectives_.share; i < iterations; i += collectives_.shares) {
    DT_ASSIGN_OR_RETURN(float l, net.Forward());
    sums[outputs] += l;
    size_t k = 0;
    for (int id : net.output_blob_indices()) {
      const Tensor* blob = net.blob(id);
      if (k + static_cast<size_t>(blob->count()) > outputs) {
        return InvalidArgument("test net #" + std::to_string(test_net_id) + ": output '" +
                               net.blob_names()[id] + "' changed size during the test");
      }
      for (int64_t j = 0; j < blob->count(); ++j, ++k) sums[k] += blob->data()[j];
    }
  }
  if (collectives_.shares > 1) DT_RETURN_IF_ERROR(collectives_.sum(&sums));
  const double loss = sums[outputs];
  if (param_.test_compute_loss()) {
    DT_LOG(INFO) << "Test loss: " << static_cast<float>(loss / std::max(1, iterations));
  }
  TestReport report;
  report.iter = iter_;
  report.net_id = test_net_id;
  size_t k = 0;
  for (int id : net.output_blob_indices()) {
    const Tensor* blob = net.blob(id);
    const float w = net.blob_loss_weight(id);
    for (int64_t j = 0; j < blob->count(); ++j, ++k) {
      const float mean = static_cast<float>(sums[k] / std::max(1, iterations));
      DT_LOG(INFO) << "    Test net output #" << k << ": " << net.blob_names()[id] << " = " << mean
                   << LossWeightSuffix(w, mean);
      report.scores.push_back({net.blob_names()[id], mean, w});
    }
  }
  for (const auto& o : test_observers_) o(report);
  return report;
}

StatusOr<TestReport> Solver::TestDetection(int test_net_id) {
  Net& net = *test_nets_[test_net_id];
  DT_RETURN_IF_ERROR(RefuseEvalDetectionOutputs(net));
  DT_ASSIGN_OR_RETURN(const detection::ApVersion version,
                      detection::ParseApVersion(param_.ap_version()));
  const int outputs = static_cast<int>(net.output_blob_indices().size());
  DetectionScores scores(outputs);
  std::vector<double> loss(1, 0.0);
  const int iterations = param_.test_iter(test_net_id);
  for (int i = collectives_.share; i < iterations; i += collectives_.shares) {
    DT_ASSIGN_OR_RETURN(float l, net.Forward());
    loss[0] += l;
    for (int j = 0; j < outputs; ++j) {
      const int id = net.output_blob_indices()[j];
      DT_RETURN_IF_ERROR(scores.Add(j, *net.blob(id), net.blob_names()[id]));
    }
  }
  if (collectives_.shares > 1) {
    DT_RETURN_IF_ERROR(collectives_.sum(&loss));
    DT_RETURN_IF_ERROR(scores.Merge(collectives_.share, collectives_.shares, collectives_.sum));
  }
  if (param_.test_compute_loss()) {
    DT_LOG(INFO) << "Test loss: " << static_cast<float>(loss[0] / std::max(1, iterations));
  }
  TestReport report;
  report.iter = iter_;
  report.net_id = test_net_id;
  for (int j = 0; j < outputs; ++j) {
    DT_ASSIGN_OR_RETURN(DetectionScores::Result result, scores.Score(j, version));
    const std::string& name = net.blob_names()[net.output_blob_indices()[j]];
    if (param_.show_per_class_result()) {
      for (const auto& [label, ap] : result.per_class) {
        DT_LOG(INFO) << "class" << label << ": " << ap;
      }
    }
    DT_LOG(INFO) << "    Test net output #" << j << ": " << name << " = "
                 << result.mean_average_precision;
    report.scores.push_back({name, result.mean_average_precision, 0.f});
  }
  for (const auto& o : test_observers_) o(report);
  return report;
}

std::string Solver::SnapshotFilename(const std::string& extension) const {
  return param_.snapshot_prefix() + "_iter_" + std::to_string(iter_) + extension;
}

Status Solver::Diverged(const std::string& what) const {
  std::string message = "training diverged at iteration " + std::to_string(iter_) + ": " + what;
  const std::string where = FirstNonFinite(*net_);
  if (!where.empty()) message += "; the first non-finite value is in " + where;
  if (where.find(" (data)") != std::string::npos) {
    message += ": the input data hold non-finite values (the learning rate is not the cause)";
  } else {
    std::ostringstream lr;
    lr << LearningRate(param_, iter_, current_step_);
    message += " (the learning rate is " + lr.str() + "; try a smaller base_lr)";
  }
  return InvalidArgument(message + ". No snapshot is written of these weights.");
}

Status Solver::Snapshot() {
  // Never write weights that diverged: the last good snapshot stays the newest.
  if (const std::string weights = DivergedWeights(*net_); !weights.empty()) {
    return Diverged(weights);
  }
  if (collectives_.synchronize_statistics)
    DT_RETURN_IF_ERROR(collectives_.synchronize_statistics());
  if (!collectives_.writes_snapshots) return Status::Ok();
  if (!param_.has_snapshot_prefix()) {
    return InvalidArgument("cannot snapshot: the solver has no snapshot_prefix");
  }
  const bool hdf5 = param_.snapshot_format() == SolverParameter::HDF5;
  const std::string model_path = SnapshotFilename(hdf5 ? ".caffemodel.h5" : ".caffemodel");
  NetParameter weights;
  net_->ToProto(&weights, param_.snapshot_diff());
  if (hdf5) {
    DT_LOG(INFO) << "Snapshotting to HDF5 file " << model_path;
    uint64_t checksum = 0;
    DT_RETURN_IF_ERROR(WriteWeightsHdf5(weights, model_path, &checksum));
    weights.set_dtrain_checksum(checksum);  // the pairing, as for binary files below
  } else {
    DT_LOG(INFO) << "Snapshotting to binary proto file " << model_path;
    SealWithChecksum(&weights);
    DT_RETURN_IF_ERROR(WriteBinaryProtoAtomically(model_path, weights));
  }

  SolverState state;
  state.set_iter(iter_);
  state.set_learned_net(model_path);
  state.set_current_step(current_step_);
  if (param_.lr_policy() == "plateau") {
    state.set_minimum_loss(minimum_loss_);
    state.set_iter_last_event(iter_last_event_);
  }
  SnapshotSolverState(&state);
  for (size_t i = 0; i < net_->layers().size(); ++i) {
    const std::string layer_state = net_->layers()[i]->SaveState();
    if (layer_state.empty()) continue;
    LayerState* s = state.add_layer_state();
    s->set_layer(net_->layer_names()[i]);
    s->set_state(layer_state);
  }
  const std::string state_path = SnapshotFilename(hdf5 ? ".solverstate.h5" : ".solverstate");
  state.set_dtrain_learned_net_checksum(weights.dtrain_checksum());
  if (hdf5) {
    DT_LOG(INFO) << "Snapshotting solver state to HDF5 file " << state_path;
    DT_RETURN_IF_ERROR(WriteSolverStateHdf5(state, state_path));
  } else {
    DT_LOG(INFO) << "Snapshotting solver state to binary proto file " << state_path;
    SealWithChecksum(&state);
    DT_RETURN_IF_ERROR(WriteBinaryProtoAtomically(state_path, state));
  }
  // Only now that the new pair is complete do older ones go.
  for (const std::string& old : retention_.Written(iter_)) {
    DT_LOG(INFO) << "Removed " << old << " (snapshot_keep: " << param_.snapshot_keep() << ")";
  }
  return Status::Ok();
}

Status Solver::Restore(const std::string& path) {
  DT_LOG(INFO) << "Restoring previous solver status from " << path;
  DT_ASSIGN_OR_RETURN(const SolverState state, ReadSolverStateFile(path));
  NetParameter weights;
  if (state.has_learned_net()) {
    DT_ASSIGN_OR_RETURN(weights, ReadSnapshotWeights(state, path));
  }
  DT_RETURN_IF_ERROR(Restore(state, state.has_learned_net() ? &weights : nullptr, path));
  retention_.ResumedFrom(path);
  return Status::Ok();
}

Status Solver::Restore(const SolverState& state, const NetParameter* weights,
                       const std::string& origin) {
  // Fields a damaged or foreign file may hold out of range, checked before anything is restored.
  if (state.iter() < 0) {
    return DataLoss(origin + ": iter is " + std::to_string(state.iter()) +
                    "; a snapshot's iteration cannot be negative (damaged file?)");
  }
  // The step counts stepvalue (multistep) or plateau_winsize (plateau) entries passed; for the
  // other policies it is not used (Caffe writes iter / stepsize there under "step").
  const bool plateau = param_.lr_policy() == "plateau";
  const int steps = plateau ? param_.plateau_winsize_size() : param_.stepvalue_size();
  if (state.current_step() < 0 ||
      ((plateau || param_.lr_policy() == "multistep") && state.current_step() > steps)) {
    return DataLoss(origin + ": current_step is " + std::to_string(state.current_step()) +
                    "; this solver has " + std::to_string(steps) +
                    (plateau ? " plateau_winsize" : " stepvalue") +
                    " entries, so it must be in [0, " + std::to_string(steps) +
                    "] (damaged file, or another solver's?)");
  }
  if (plateau && (std::isnan(state.minimum_loss()) || state.iter_last_event() < 0 ||
                  state.iter_last_event() > state.iter())) {
    std::ostringstream fields;
    fields << "minimum_loss " << state.minimum_loss() << " or iter_last_event "
           << state.iter_last_event();
    return DataLoss(origin + ": " + fields.str() +
                    " is out of range: the last event is at or before the snapshot's iteration "
                    "(damaged file?)");
  }
  if (weights) {
    DT_RETURN_IF_ERROR(net_->CopyTrainedLayersFrom(*weights).WithContext(state.learned_net()));
  }
  iter_ = state.iter();
  current_step_ = state.current_step();
  if (plateau) {
    // Caffe's default (1e38) where the file has none, as Intel Caffe reads it.
    minimum_loss_ = state.minimum_loss();
    iter_last_event_ = state.iter_last_event();
  }
  DT_RETURN_IF_ERROR(RestoreSolverState(state).WithContext(origin));
  for (const LayerState& s : state.layer_state()) {
    Layer* layer = net_->layer_by_name(s.layer());
    if (!layer) continue;
    DT_RETURN_IF_ERROR(
        layer->RestoreState(s.state()).WithContext(origin + ": layer '" + s.layer() + "'"));
  }
  return Status::Ok();
}

}  // namespace dtrain
