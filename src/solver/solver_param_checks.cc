#include "solver/solver_param_checks.h"

#include <cmath>
#include <sstream>

#include "kernels/engine.h"
#include "solver/lr_policy.h"

namespace dtrain {

Status ValidateSolverParameter(const SolverParameter& param) {
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
  if (param.local_lr_auto()) {
    // Intel Caffe computes LARS in SGD's update only: under another rule the field did nothing.
    std::string type = param.type();
    if (!param.has_type() && param.has_solver_type()) {
      type = SolverParameter::SolverType_Name(param.solver_type());
    }
    if (type != "SGD") {
      return InvalidArgument(
          "local_lr_auto (LARS) is part of SGD's update in Intel Caffe; under "
          "type \"" +
          type + "\" it never applied: remove it or use type: \"SGD\"");
    }
    if (!(param.local_gw_ratio() > 0) || std::isinf(param.local_gw_ratio())) {
      std::ostringstream got;
      got << param.local_gw_ratio();
      return InvalidArgument("local_gw_ratio must be a finite number > 0 with local_lr_auto, got " +
                             got.str());
    }
  }
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
