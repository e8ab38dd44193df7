#include "solver/latest_snapshot.h"

#include <filesystem>

#include "solver/hdf5_snapshot.h"
#include "solver/snapshot_names.h"

namespace dtrain {
namespace {

bool EndsWith(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Empty when the snapshot at `state_path` is complete; else why not.
std::string WhyIncomplete(const std::string& state_path, long long iteration) {
  const StatusOr<SolverState> state = ReadSolverStateFile(state_path);
  if (!state.ok()) return state.status().message();
  if (state->iter() != iteration) {
    return "holds iteration " + std::to_string(state->iter()) + ", not the " +
           std::to_string(iteration) + " of its name";
  }
  if (!state->has_learned_net()) return "names no weights file (learned_net)";
  // A relative name is the training's working directory's; the pair is always written side by
  // side, so it is looked for beside the state, wherever this runs.
  std::filesystem::path weights_path = state->learned_net();
  if (weights_path.is_relative()) {
    weights_path = std::filesystem::path(state_path).parent_path() / weights_path.filename();
  }
  const StatusOr<NetParameter> weights = ReadWeightsFile(weights_path.string());
  if (!weights.ok()) return "its weights: " + weights.status().message();
  if (state->has_dtrain_learned_net_checksum() && weights->has_dtrain_checksum() &&
      state->dtrain_learned_net_checksum() != weights->dtrain_checksum()) {
    return "its weights " + state->learned_net() + " are not the ones written with it";
  }
  return "";
}

}  // namespace

SnapshotChoice FindLatestCompleteSnapshot(const std::string& snapshot_prefix) {
  SnapshotChoice choice;
  const std::filesystem::path dir = SnapshotDirectory(snapshot_prefix);
  const auto by_iteration = SnapshotFilesByIteration(snapshot_prefix);
  for (auto it = by_iteration.rbegin(); it != by_iteration.rend(); ++it) {
    bool has_state = false;
    for (const std::string& name : it->second) {
      if (!EndsWith(name, ".solverstate") && !EndsWith(name, ".solverstate.h5")) continue;
      has_state = true;
      const std::string path = (dir / name).string();
      const std::string why = WhyIncomplete(path, it->first);
      if (why.empty()) {
        choice.solverstate = path;
        choice.iteration = it->first;
        return choice;
      }
      choice.passed_over.push_back(path + ": " + why);
    }
    if (!has_state) {
      choice.passed_over.push_back((dir / it->second.front()).string() +
                                   ": no solver state beside it");
    }
  }
  return choice;
}

}  // namespace dtrain
