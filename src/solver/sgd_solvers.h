// The update rules: SGD with momentum (Caffe's "SGD") and its relatives Nesterov, AdaGrad,
// RMSProp, AdaDelta and Adam, with Caffe's exact formulas (see each ComputeUpdateValue).
//
// SgdSolver::ApplyUpdate does what every rule shares: learning rate from the policy, gradient
// clipping (clip_gradients, over the global L2 norm), normalisation by iter_size, each
// parameter's rate (its lr_mult, or with local_lr_auto Intel Caffe's LARS, from the norms before
// decay), weight decay (L2 or L1, scaled by each parameter's decay_mult), then the rule, then
// data -= diff. SGD's rule also applies Intel Caffe's momentum correction during warmup.
// `history_` holds the rule's per-parameter state (two tensors per parameter for AdaDelta and
// Adam: history then update/second moment), saved in and restored from the .solverstate in
// Caffe's order.
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

  void ApplyUpdate() override;
  void SnapshotSolverState(SolverState* state) const override;
  Status RestoreSolverState(const SolverState& state) override;
  void InitHistory();

  std::vector<std::unique_ptr<Tensor>> history_;
  // Each parameter's rate multiplier for this update: its lr_mult, or LarsRate.
  std::vector<float> local_rates_;

 private:
  // Intel Caffe's LARS multiplier (local_lr_auto): local_gw_ratio * |w| / (|dw| + weight_decay *
  // |w|), 1 where a norm is 0, and lr_mult itself where it is 0 or less. Norms summed in double.
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

}  // namespace dtrain
