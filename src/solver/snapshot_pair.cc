#include "solver/snapshot_pair.h"

#include "solver/hdf5_snapshot.h"

namespace dtrain {

StatusOr<NetParameter> ReadSnapshotWeights(const SolverState& state,
                                           const std::string& state_path) {
  DT_ASSIGN_OR_RETURN(NetParameter weights, ReadWeightsFile(state.learned_net()));
  if (state.has_dtrain_learned_net_checksum() && weights.has_dtrain_checksum() &&
      state.dtrain_learned_net_checksum() != weights.dtrain_checksum()) {
    return DataLoss(state_path + " was written with another '" + state.learned_net() +
                    "' than the one there now: the two files are from different runs or nets "
                    "(or the .caffemodel was replaced); resume needs the pair written together");
  }
  return weights;
}

}  // namespace dtrain
