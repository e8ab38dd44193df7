#include <cmath>
#include <map>

#include "core/logging.h"
#include "solver/lr_policy.h"
#include "solver/sgd_solvers.h"

namespace dtrain {

template <typename T>
StatusOr<std::unique_ptr<Solver>> MakeSolver(const SolverParameter& param) {
  std::unique_ptr<T> solver(new T(param));
  DT_RETURN_IF_ERROR(solver->Init());
  solver->InitHistory();
  return std::unique_ptr<Solver>(std::move(solver));
}

StatusOr<std::unique_ptr<Solver>> CreateSolver(const SolverParameter& param) {
  static const char* kLegacyNames[] = {"SGD", "Nesterov", "AdaGrad", "RMSProp", "AdaDelta", "Adam"};
  std::string type = param.type();
  if (!param.has_type() && param.has_solver_type()) type = kLegacyNames[param.solver_type()];
  if (type == "SGD") return MakeSolver<SgdSolver>(param);
  if (type == "Nesterov") return MakeSolver<NesterovSolver>(param);
  if (type == "AdaGrad") {
    if (param.momentum() != 0)
      return InvalidArgument("AdaGrad does not use momentum; set momentum: 0");
    return MakeSolver<AdaGradSolver>(param);
  }
  if (type == "RMSProp") {
    if (param.rms_decay() < 0 || param.rms_decay() >= 1) {
      return InvalidArgument("RMSProp needs rms_decay in [0, 1)");
    }
    return MakeSolver<RmsPropSolver>(param);
  }
  if (type == "AdaDelta") return MakeSolver<AdaDeltaSolver>(param);
  if (type == "Adam") return MakeSolver<AdamSolver>(param);
  if (type == "LAMB") return MakeSolver<LambSolver>(param);
  return Unsupported("unknown solver type \"" + type +
                     "\"; supported: SGD, Nesterov, AdaGrad, RMSProp, AdaDelta, Adam, LAMB");
}

StatusOr<std::unique_ptr<Solver>> SgdSolver::Create(const SolverParameter& param) {
  return MakeSolver<SgdSolver>(param);
}

void SgdSolver::InitHistory() {
  history_.clear();
  for (int k = 0; k < HistoryPerParam(); ++k) {
    for (Tensor* p : net_->learnable_params()) {
      auto h = std::make_unique<Tensor>(p->shape());
      h->SetData(0.f);
      history_.push_back(std::move(h));
    }
  }
}

void SgdSolver::ApplyUpdate() {
  const float rate = LearningRate(param_, iter_, current_step_);
  if (param_.lr_policy() == "multistep") {
    while (current_step_ < param_.stepvalue_size() && iter_ >= param_.stepvalue(current_step_)) {
      ++current_step_;
      DT_LOG(INFO) << "MultiStep Status: Iteration " << iter_ << ", step = " << current_step_;
    }
  }
  ClipGradients();
  const auto& params = net_->learnable_params();
  local_rates_.resize(params.size());
  for (int i = 0; i < static_cast<int>(params.size()); ++i) {
    Normalize(i);
    // LARS takes its norms before weight decay, as Intel Caffe does.
    local_rates_[i] = LocalRate(i);
    if (DecaysTheGradient()) Regularize(i);
    ComputeUpdateValue(i, rate);
  }
  for (Tensor* p : params) {
    float* data = p->mutable_data();
    const float* diff = p->diff();
    const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
    for (int64_t j = 0; j < n; ++j) data[j] -= diff[j];
  }
}

void SgdSolver::ClipGradients() {
  const float clip = param_.clip_gradients();
  if (clip < 0) return;
  double sumsq = 0;
  for (Tensor* p : net_->learnable_params()) {
    for (int64_t j = 0; j < p->count(); ++j)
      sumsq += static_cast<double>(p->diff()[j]) * p->diff()[j];
  }
  const float norm = static_cast<float>(std::sqrt(sumsq));
  if (norm <= clip) return;
  DT_LOG(INFO) << "Gradient clipping: scaling down gradients (L2 norm " << norm << " > " << clip
               << ") by scale factor " << clip / norm;
  for (Tensor* p : net_->learnable_params()) {
    float* d = p->mutable_diff();
    for (int64_t j = 0; j < p->count(); ++j) d[j] *= clip / norm;
  }
}

void SgdSolver::Normalize(int param_id) {
  if (param_.iter_size() == 1) return;
  Tensor* p = net_->learnable_params()[param_id];
  const float scale = 1.f / static_cast<float>(param_.iter_size());
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) d[j] *= scale;
}

bool SgdSolver::TrustRatioApplies(int param_id) const {
  return !Layerwise() || net_->learnable_params()[param_id]->num_axes() >= 2;
}

float SgdSolver::DecayOf(int param_id) const {
  if (!TrustRatioApplies(param_id)) return 0.f;
  return param_.weight_decay() * net_->params_weight_decay()[param_id];
}

void SgdSolver::Regularize(int param_id) {
  Tensor* p = net_->learnable_params()[param_id];
  const float decay = DecayOf(param_id);
  if (decay == 0.f) return;
  const float* x = p->data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
  if (param_.regularization_type() == "L2") {
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
    for (int64_t j = 0; j < n; ++j) d[j] += decay * x[j];
  } else if (param_.regularization_type() == "L1") {
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
    for (int64_t j = 0; j < n; ++j) d[j] += decay * static_cast<float>((x[j] > 0) - (x[j] < 0));
  }
}

float SgdSolver::LocalRate(int param_id) const {
  return param_.local_lr_auto() ? LarsRate(param_id) : net_->params_lr()[param_id];
}

float SgdSolver::LarsRate(int param_id) const {
  const Tensor* p = net_->learnable_params()[param_id];
  const float lr_mult = net_->params_lr()[param_id];
  float weight_decay = param_.weight_decay();
  if (Layerwise()) {
    if (lr_mult == 0.f || !TrustRatioApplies(param_id)) return lr_mult;
    weight_decay = DecayOf(param_id);
  } else if (lr_mult <= 0.f) {
    return lr_mult;  // Intel's form: lr_mult only gates, a frozen blob stays frozen
  }
  const float w_norm = SerialL2Norm(p->data(), p->count());
  const float d_norm = SerialL2Norm(p->diff(), p->count());
  float ratio = 1.f;
  if (w_norm > 0.f && d_norm > 0.f) {
    ratio = param_.local_gw_ratio() * w_norm / (d_norm + weight_decay * w_norm);
  }
  return Layerwise() ? lr_mult * ratio : ratio;
}

void SgdSolver::ComputeUpdateValue(int param_id, float rate) {
  Tensor* p = net_->learnable_params()[param_id];
  const float local_rate = rate * local_rates_[param_id];
  float momentum = param_.momentum();
  if (InWarmup(param_, iter_)) {
    // Intel Caffe's momentum correction during warmup. Where the previous rate is 0 (a warmup
    // from 0) Intel Caffe divides by it and trains on NaN; the momentum then stays as it is.
    const float previous = WarmupRate(param_, iter_ - 1);
    if (previous > 0.f) momentum = momentum * (rate / previous);
  }
  float* h = history_[param_id]->mutable_data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) {
    h[j] = local_rate * d[j] + momentum * h[j];
    d[j] = h[j];
  }
}

void SgdSolver::SnapshotSolverState(SolverState* state) const {
  for (const auto& h : history_) h->ToProto(state->add_history(), false);
}

Status SgdSolver::RestoreSolverState(const SolverState& state) {
  if (state.history_size() != static_cast<int>(history_.size())) {
    return DataLoss("solver state has " + std::to_string(state.history_size()) +
                    " history blobs, the " + std::string(type()) + " solver for this net needs " +
                    std::to_string(history_.size()));
  }
  for (size_t i = 0; i < history_.size(); ++i) {
    DT_RETURN_IF_ERROR(history_[i]
                           ->FromProto(state.history(static_cast<int>(i)), false)
                           .WithContext("history blob " + std::to_string(i)));
  }
  return Status::Ok();
}

}  // namespace dtrain
