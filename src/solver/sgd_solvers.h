// The update rules: SGD with momentum (Caffe's "SGD") and its relatives Nesterov, AdaGrad,
// RMSProp, AdaDelta and Adam, with Caffe's exact formulas (see each ComputeUpdateValue), and
// LAMB (You et al. 2019, Algorithm 2).
//
// SgdSolver::ApplyUpdate does what every rule shares: learning rate from the policy, gradient
// clipping (clip_gradients, over the global L2 norm), normalisation by iter_size, each
// parameter's rate multiplier (LocalRate: its lr_mult, or with local_lr_auto LARS, from the
// norms before decay), weight decay into the gradient (L2 or L1, weight_decay x decay_mult; LAMB
// adds its own to its step instead), then the rule, then data -= diff. SGD's rule also applies
// Intel Caffe's momentum correction during warmup. trust_ratio_form says which blobs LARS's and
// LAMB's trust ratios apply to and how lr_mult combines with them (docs/solver.md).
// `history_` holds the rule's per-parameter state (two tensors per parameter for AdaDelta, Adam
// and LAMB: history then update/second moment), saved in and restored from the .solverstate in
// Caffe's order. Norms are summed in double, serially, so every rank of a data-parallel job gets
// the same ratios from the same (exchanged) gradients.
#pragma once

#include <memory>
#include <vector>

#include "solver/element_loops.h"
#include "solver/solver.h"

namespace dtrain {

class SgdSolver : public Solver {
 public:
  static StatusOr<std::unique_ptr<Solver>> Create(const SolverParameter& param);
  const char* type() const override { return "SGD"; }

 protected:
  explicit SgdSolver(const SolverParameter& param) : Solver(param) {}
  // History tensors per learnable parameter (1 for SGD; AdaDelta and Adam use 2).
  virtual int HistoryPerParam() const { return 1; }
  // Turns param i's (clipped, normalised, regularised) diff into the step to subtract.
  virtual void ComputeUpdateValue(int param_id, float rate);
  // Param i's multiplier of the policy's rate: lr_mult, or LarsRate with local_lr_auto.
  virtual float LocalRate(int param_id) const;
  // Whether weight decay is added to the gradient before the rule (LAMB adds it to its step).
  virtual bool DecaysTheGradient() const { return true; }

  // trust_ratio_form LAYERWISE: the trust ratio and weight decay skip blobs of fewer than 2
  // axes (biases, BatchNorm's and Scale's), and lr_mult multiplies the rate.
  bool Layerwise() const { return param_.trust_ratio_form() == SolverParameter::LAYERWISE; }
  bool TrustRatioApplies(int param_id) const;
  // The weight decay coefficient of param i: weight_decay x decay_mult (0 where LAYERWISE
  // exempts the blob).
  float DecayOf(int param_id) const;

  void ApplyUpdate() override;
  void SnapshotSolverState(SolverState* state) const override;
  Status RestoreSolverState(const SolverState& state) override;
  void InitHistory();

  std::vector<std::unique_ptr<Tensor>> history_;
  // Each parameter's rate multiplier for this update: its lr_mult, or LarsRate.
  std::vector<float> local_rates_;

 private:
  // LARS's multiplier (local_lr_auto), from |w| and |dw| before decay. INTEL: local_gw_ratio *
  // |w| / (|dw| + weight_decay * |w|) (1 where a norm is 0), or lr_mult itself where it is 0 or
  // less. LAYERWISE: lr_mult times that ratio with weight_decay x decay_mult, or lr_mult alone on
  // a blob of fewer than 2 axes.
  float LarsRate(int param_id) const;
  void ClipGradients();
  void Normalize(int param_id);
  void Regularize(int param_id);

  template <typename T>
  friend StatusOr<std::unique_ptr<Solver>> MakeSolver(const SolverParameter& param);
};

class NesterovSolver : public SgdSolver {
 public:
  explicit NesterovSolver(const SolverParameter& p) : SgdSolver(p) {}
  const char* type() const override { return "Nesterov"; }

 protected:
  void ComputeUpdateValue(int param_id, float rate) override;
};

class AdaGradSolver : public SgdSolver {
 public:
  explicit AdaGradSolver(const SolverParameter& p) : SgdSolver(p) {}
  const char* type() const override { return "AdaGrad"; }

 protected:
  void ComputeUpdateValue(int param_id, float rate) override;
};

class RmsPropSolver : public SgdSolver {
 public:
  explicit RmsPropSolver(const SolverParameter& p) : SgdSolver(p) {}
  const char* type() const override { return "RMSProp"; }

 protected:
  void ComputeUpdateValue(int param_id, float rate) override;
};

class AdaDeltaSolver : public SgdSolver {
 public:
  explicit AdaDeltaSolver(const SolverParameter& p) : SgdSolver(p) {}
  const char* type() const override { return "AdaDelta"; }

 protected:
  int HistoryPerParam() const override { return 2; }
  void ComputeUpdateValue(int param_id, float rate) override;
};

class AdamSolver : public SgdSolver {
 public:
  explicit AdamSolver(const SolverParameter& p) : SgdSolver(p) {}
  const char* type() const override { return "Adam"; }

 protected:
  int HistoryPerParam() const override { return 2; }
  void ComputeUpdateValue(int param_id, float rate) override;
};

// LAMB: Adam's moments m, v (beta1 = momentum, beta2 = momentum2, epsilon = delta), bias
// corrected at t = iter + 1; r = m_hat / (sqrt(v_hat) + delta) + decay * w, with the decay
// decoupled from the moments; step = rate x LocalRate x trust ratio x r, the trust ratio
// |w| / |r| (1 where a norm is 0) on the blobs trust_ratio_form gives it to. LocalRate: INTEL,
// lr_mult only gates (1, or lr_mult where it is 0 or less); LAYERWISE, lr_mult.
class LambSolver : public SgdSolver {
 public:
  explicit LambSolver(const SolverParameter& p) : SgdSolver(p) {}
  const char* type() const override { return "LAMB"; }

 protected:
  int HistoryPerParam() const override { return 2; }
  bool DecaysTheGradient() const override { return false; }
  float LocalRate(int param_id) const override;
  void ComputeUpdateValue(int param_id, float rate) override;
};

}  // namespace dtrain
