// Caffe's adaptive update rules, and LAMB. `h` is the first history tensor, `u` the second
// (AdaDelta's accumulated updates, Adam's second moment); `d` enters as the gradient and leaves
// as the step.
#include <cmath>

#include "solver/sgd_solvers.h"

namespace dtrain {

void NesterovSolver::ComputeUpdateValue(int param_id, float rate) {
  Tensor* p = net_->learnable_params()[param_id];
  const float local_rate = rate * net_->params_lr()[param_id];
  const float momentum = param_.momentum();
  float* h = history_[param_id]->mutable_data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) {
    const float previous = h[j];
    h[j] = momentum * h[j] + local_rate * d[j];
    d[j] = (1 + momentum) * h[j] - momentum * previous;
  }
}

void AdaGradSolver::ComputeUpdateValue(int param_id, float rate) {
  Tensor* p = net_->learnable_params()[param_id];
  const float local_rate = rate * net_->params_lr()[param_id];
  const float delta = param_.delta();
  float* h = history_[param_id]->mutable_data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) {
    h[j] += d[j] * d[j];
    d[j] = local_rate * d[j] / (std::sqrt(h[j]) + delta);
  }
}

void RmsPropSolver::ComputeUpdateValue(int param_id, float rate) {
  Tensor* p = net_->learnable_params()[param_id];
  const float local_rate = rate * net_->params_lr()[param_id];
  const float decay = param_.rms_decay();
  const float delta = param_.delta();
  float* h = history_[param_id]->mutable_data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) {
    h[j] = decay * h[j] + (1 - decay) * d[j] * d[j];
    d[j] = local_rate * d[j] / (std::sqrt(h[j]) + delta);
  }
}

void AdaDeltaSolver::ComputeUpdateValue(int param_id, float rate) {
  Tensor* p = net_->learnable_params()[param_id];
  const size_t params = net_->learnable_params().size();
  const float local_rate = rate * net_->params_lr()[param_id];
  const float momentum = param_.momentum();
  const float delta = param_.delta();
  float* h = history_[param_id]->mutable_data();
  float* u = history_[params + param_id]->mutable_data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) {
    h[j] = momentum * h[j] + (1 - momentum) * d[j] * d[j];
    d[j] = d[j] * std::sqrt(u[j] + delta) / std::sqrt(h[j] + delta);
    u[j] = momentum * u[j] + (1 - momentum) * d[j] * d[j];
    d[j] *= local_rate;
  }
}

void AdamSolver::ComputeUpdateValue(int param_id, float rate) {
  Tensor* p = net_->learnable_params()[param_id];
  const size_t params = net_->learnable_params().size();
  const float local_rate = rate * net_->params_lr()[param_id];
  const float beta1 = param_.momentum();
  const float beta2 = param_.momentum2();
  const float eps = param_.delta();
  const int t = iter_ + 1;
  const float correction = std::sqrt(1 - std::pow(beta2, t)) / (1 - std::pow(beta1, t));
  float* m = history_[param_id]->mutable_data();
  float* v = history_[params + param_id]->mutable_data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) {
    m[j] = beta1 * m[j] + (1 - beta1) * d[j];
    v[j] = beta2 * v[j] + (1 - beta2) * d[j] * d[j];
    d[j] = local_rate * correction * m[j] / (std::sqrt(v[j]) + eps);
  }
}

float LambSolver::LocalRate(int param_id) const {
  const float lr_mult = net_->params_lr()[param_id];
  if (Layerwise()) return lr_mult;
  return lr_mult > 0.f ? 1.f : lr_mult;  // Intel's form: lr_mult only gates
}

void LambSolver::ComputeUpdateValue(int param_id, float rate) {
  Tensor* p = net_->learnable_params()[param_id];
  const size_t params = net_->learnable_params().size();
  const float beta1 = param_.momentum();
  const float beta2 = param_.momentum2();
  const float eps = param_.delta();
  const float decay = DecayOf(param_id);
  const int t = iter_ + 1;
  const float correction1 = static_cast<float>(1 - std::pow(double{beta1}, t));
  const float correction2 = static_cast<float>(1 - std::pow(double{beta2}, t));
  float* m = history_[param_id]->mutable_data();
  float* v = history_[params + param_id]->mutable_data();
  const float* x = p->data();
  float* d = p->mutable_diff();
  const int64_t n = p->count();
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) {
    m[j] = beta1 * m[j] + (1 - beta1) * d[j];
    v[j] = beta2 * v[j] + (1 - beta2) * d[j] * d[j];
    d[j] = (m[j] / correction1) / (std::sqrt(v[j] / correction2) + eps) + decay * x[j];
  }
  float trust_ratio = 1.f;
  if (TrustRatioApplies(param_id)) {
    const float w_norm = SerialL2Norm(x, n);
    const float r_norm = SerialL2Norm(d, n);
    // 1 where a norm is 0; a non-finite |r| (a NaN or infinite gradient) stays non-finite, so
    // the whole blob shows the divergence.
    if (w_norm != 0.f && r_norm != 0.f) trust_ratio = w_norm / r_norm;
  }
  const float scale = rate * local_rates_[param_id] * trust_ratio;
#pragma omp parallel for simd schedule(static) if (parallel : n >= kThreadedUpdateElements)
  for (int64_t j = 0; j < n; ++j) d[j] *= scale;
}

}  // namespace dtrain
