#include "solver/solver_param_checks.h"

#include <cmath>
#include <sstream>

#include "detection/average_precision.h"
#include "kernels/engine.h"
#include "solver/lr_policy.h"

namespace dtrain {
namespace {

std::string Number(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// LARS (local_lr_auto under SGD) and LAMB, which scale each blob's step by a trust ratio, and
// trust_ratio_form, which says how (proto/solver.proto).
Status ValidateTrustRatioRules(const SolverParameter& param, const std::string& type) {
  const bool lamb = type == "LAMB";
  const bool lars = param.local_lr_auto();
  const bool layerwise = param.trust_ratio_form() == SolverParameter::LAYERWISE;
  if (layerwise && !lars && !lamb) {
    return InvalidArgument(
        "trust_ratio_form: LAYERWISE says how LARS (local_lr_auto: true under type \"SGD\") and "
        "type \"LAMB\" apply their trust ratio; under type \"" +
        type + "\" without local_lr_auto it would change nothing: remove it");
  }
  if (!lars && !lamb) return Status::Ok();
  const std::string rule = lamb ? "type \"LAMB\"" : "local_lr_auto (LARS)";
  if (lamb) {
    if (param.has_local_gw_ratio()) {
      return InvalidArgument(
          "local_gw_ratio is LARS's coefficient (local_lr_auto under SGD); LAMB's trust ratio "
          "|w| / |r| has none: remove it");
    }
    if (!(param.momentum() >= 0 && param.momentum() < 1)) {
      return InvalidArgument("type \"LAMB\" needs momentum (its beta1) in [0, 1), got " +
                             Number(param.momentum()));
    }
    if (!(param.momentum2() >= 0 && param.momentum2() < 1)) {
      return InvalidArgument("type \"LAMB\" needs momentum2 (its beta2) in [0, 1), got " +
                             Number(param.momentum2()));
    }
    if (!(param.delta() > 0) || std::isinf(param.delta())) {
      return InvalidArgument("type \"LAMB\" needs delta (its epsilon) a finite number > 0, got " +
                             Number(param.delta()));
    }
  }
  if (!(param.weight_decay() >= 0) || std::isinf(param.weight_decay())) {
    return InvalidArgument("weight_decay must be a finite number >= 0 with " + rule + ", got " +
                           Number(param.weight_decay()));
  }
  // LAMB's decay is the L2 term decay x w of its step; LAYERWISE LARS's trust ratio divides by
  // |dw| + decay x |w|, the norm of an L2 gradient. An L1 decay has neither.
  if (param.regularization_type() == "L1" && (lamb || layerwise)) {
    return InvalidArgument(
        "regularization_type \"L1\" with " +
        std::string(lamb ? "type \"LAMB\"" : "trust_ratio_form: LAYERWISE") +
        ": its trust ratio and weight decay are those of L2 decay (decay x w); use "
        "regularization_type: \"L2\" (the default)");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateSolverParameter(const SolverParameter& param) {
  if (param.eval_type() != "classification" && param.eval_type() != "detection") {
    return InvalidArgument("eval_type \"" + param.eval_type() +
                           "\" is not \"classification\" or \"detection\"");
  }
  DT_RETURN_IF_ERROR(detection::ParseApVersion(param.ap_version()).status());
  if (!param.has_net() && !param.has_net_param() && !param.has_train_net() &&
      !param.has_train_net_param()) {
    return InvalidArgument(
        "the solver names no net: set net (a file), net_param, train_net or "
        "train_net_param");
  }
  if (param.max_iter() < 0) {
    return InvalidArgument("max_iter must not be negative, got " +
                           std::to_string(param.max_iter()));
  }
  DT_RETURN_IF_ERROR(ValidateLrPolicy(param));
  DT_RETURN_IF_ERROR(ParseEngine(param.engine()).status().WithContext("engine"));
  DT_RETURN_IF_ERROR(ParseEngine(param.forced_engine()).status().WithContext("forced_engine"));
  // Caffe stops at the first update with weight decay on any other value; refusing it up front
  // keeps a typo from silently training without weight decay.
  const std::string& regularization = param.regularization_type();
  if (regularization != "L2" && regularization != "L1") {
    return InvalidArgument("unknown regularization_type \"" + regularization +
                           "\"; supported: L2 (the default), L1");
  }
  std::string type = param.type();
  if (!param.has_type() && param.has_solver_type()) {
    type = SolverParameter::SolverType_Name(param.solver_type());
  }
  if (param.local_lr_auto()) {
    // Intel Caffe computes LARS in SGD's update only: under another rule the field did nothing.
    if (type == "LAMB") {
      return InvalidArgument(
          "local_lr_auto (LARS) is SGD's rule; type \"LAMB\" applies its own trust ratio "
          "|w| / |r| and has no local_gw_ratio: remove local_lr_auto");
    }
    if (type != "SGD") {
      return InvalidArgument(
          "local_lr_auto (LARS) is part of SGD's update in Intel Caffe; under "
          "type \"" +
          type + "\" it never applied: remove it or use type: \"SGD\"");
    }
    if (!(param.local_gw_ratio() > 0) || std::isinf(param.local_gw_ratio())) {
      return InvalidArgument("local_gw_ratio must be a finite number > 0 with local_lr_auto, got " +
                             Number(param.local_gw_ratio()));
    }
  }
  DT_RETURN_IF_ERROR(ValidateTrustRatioRules(param, type));
  if (param.iter_size() < 1) return InvalidArgument("iter_size must be at least 1");
  if (param.average_loss() < 1) return InvalidArgument("average_loss must be at least 1");
  if (param.snapshot_keep() < 0) {
    return InvalidArgument("snapshot_keep must not be negative (0 keeps every snapshot), got " +
                           std::to_string(param.snapshot_keep()));
  }
  if (!(param.snapshot_interval_s() >= 0) || std::isinf(param.snapshot_interval_s())) {
    std::ostringstream got;
    got << param.snapshot_interval_s();
    return InvalidArgument(
        "snapshot_interval_s must be a finite number of seconds >= 0 (0: no timed snapshots), "
        "got " +
        got.str());
  }
  return Status::Ok();
}

}  // namespace dtrain
