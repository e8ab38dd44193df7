#include "solver/multi_phase.h"

#include <filesystem>

#include "core/proto_io.h"
#include "net/read_net.h"
#include "solver/solver_param_checks.h"
#include "solver/upgrade_solver.h"

namespace dtrain {

StatusOr<std::optional<std::vector<SolverParameter>>> ReadSolverPhases(const std::string& path) {
  SolverParameter solver;
  if (ReadTextProto(path, &solver).ok()) return std::optional<std::vector<SolverParameter>>();
  MultiPhaseSolverParameter phases;
  if (!ReadTextProto(path, &phases).ok() || phases.params_pair_size() == 0) {
    return std::optional<std::vector<SolverParameter>>();
  }
  DT_ASSIGN_OR_RETURN(std::vector<SolverParameter> expanded, ExpandSolverPhases(phases, path));
  return std::optional<std::vector<SolverParameter>>(std::move(expanded));
}

StatusOr<std::vector<SolverParameter>> ExpandSolverPhases(const MultiPhaseSolverParameter& phases,
                                                          const std::string& source) {
  const SolverParameter& first = phases.params_pair(0).solver_params();
  if (!phases.params_pair(0).has_solver_params() || !first.has_net()) {
    return InvalidArgument(source +
                           ": a multi-phase file's first params_pair needs solver_params with a "
                           "`net` file (Intel Caffe reads the phases' net from it)");
  }
  DT_ASSIGN_OR_RETURN(NetParameter topology, ReadNetParameter(first.net()));
  std::vector<SolverParameter> expanded;
  SolverParameter solver;
  for (int j = 0; j < phases.params_pair_size(); ++j) {
    const SolverBatchSizePair& pair = phases.params_pair(j);
    const std::string where = source + ": params_pair " + std::to_string(j);
    if (pair.has_solver_params()) {
      solver = pair.solver_params();
      DT_RETURN_IF_ERROR(UpgradeSolverAsNeeded(where, &solver));
    }
    if (pair.has_batch_size()) {
      if (pair.batch_size() == 0) return InvalidArgument(where + ": batch_size must be positive");
      LayerParameter* data = nullptr;
      for (LayerParameter& layer : *topology.mutable_layer()) {
        if (layer.type() == "Data") {
          data = &layer;
          break;
        }
      }
      if (data == nullptr) {
        return InvalidArgument(where + ": batch_size " + std::to_string(pair.batch_size()) +
                               " is for the net's first Data layer, and " + first.net() +
                               " has none");
      }
      data->mutable_data_param()->set_batch_size(pair.batch_size());
    }
    SolverParameter phase = solver;
    phase.clear_net();
    phase.clear_train_net();
    phase.clear_train_net_param();
    *phase.mutable_net_param() = topology;
    // An empty prefix is dtrain's default, the file's path without its extension.
    const std::string prefix =
        first.snapshot_prefix().empty()
            ? (std::filesystem::path(source).parent_path() / std::filesystem::path(source).stem())
                  .string()
            : first.snapshot_prefix();
    phase.set_snapshot_prefix(prefix + "_phase_" + std::to_string(j));
    DT_RETURN_IF_ERROR(ValidateSolverParameter(phase).WithContext(where));
    expanded.push_back(std::move(phase));
  }
  return expanded;
}

}  // namespace dtrain
