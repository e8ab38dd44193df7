// The weights a solver state names, checked to be the ones written with it: what a resume
// (Solver::Restore, and rank 0 of a data-parallel Trainer::Restore) copies into the net. Binary
// and HDF5 snapshots alike: the state carries its weights file's checksum
// (dtrain_learned_net_checksum, solver/hdf5_snapshot.h for the HDF5 attributes), and a weights
// file with another checksum (another run's, another net's, a replaced file) is refused naming
// both files. Files without checksums (Caffe's) are taken as they are. Reads files; stateless.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/net.pb.h"
#include "proto/solver.pb.h"

namespace dtrain {

// The weights file `state.learned_net()` names, read and verified (state read from
// `state_path`); the state must name one.
StatusOr<NetParameter> ReadSnapshotWeights(const SolverState& state, const std::string& state_path);

}  // namespace dtrain
