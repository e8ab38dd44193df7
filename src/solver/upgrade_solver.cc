#include "solver/upgrade_solver.h"

#include "core/logging.h"
#include "core/proto_io.h"
#include "net/read_net.h"

namespace dtrain {

StatusOr<bool> UpgradeSolverType(SolverParameter* solver) {
  if (!solver->has_solver_type()) return false;
  static const char* const kNames[] = {"SGD", "Nesterov", "AdaGrad", "RMSProp", "AdaDelta", "Adam"};
  const std::string legacy = kNames[solver->solver_type()];
  if (solver->has_type() && solver->type() != legacy) {
    return InvalidArgument(
        "solver_type: " + SolverParameter::SolverType_Name(solver->solver_type()) +
        " (deprecated) and type: \"" + solver->type() +
        "\" name different solvers; keep only type");
  }
  solver->set_type(legacy);
  solver->clear_solver_type();
  return true;
}

Status UpgradeSolverAsNeeded(const std::string& source, SolverParameter* solver) {
  auto changed = UpgradeSolverType(solver);
  if (!changed.ok()) return changed.status().WithContext(source);
  if (*changed)
    DT_LOG(INFO) << source << ": upgraded the deprecated solver_type enum to type: \""
                 << solver->type() << "\"";
  auto upgrade = [&](NetParameter* net, const std::string& field) -> Status {
    DT_ASSIGN_OR_RETURN(*net, UpgradeNetAsNeeded(*net, source + " (" + field + ")"));
    return Status::Ok();
  };
  if (solver->has_net_param())
    DT_RETURN_IF_ERROR(upgrade(solver->mutable_net_param(), "net_param"));
  if (solver->has_train_net_param()) {
    DT_RETURN_IF_ERROR(upgrade(solver->mutable_train_net_param(), "train_net_param"));
  }
  for (int i = 0; i < solver->test_net_param_size(); ++i) {
    DT_RETURN_IF_ERROR(
        upgrade(solver->mutable_test_net_param(i), "test_net_param #" + std::to_string(i)));
  }
  return Status::Ok();
}

StatusOr<SolverParameter> ReadSolverParameter(const std::string& path) {
  SolverParameter solver;
  DT_RETURN_IF_ERROR(ReadTextProto(path, &solver));
  DT_RETURN_IF_ERROR(UpgradeSolverAsNeeded(path, &solver));
  return solver;
}

}  // namespace dtrain
