// Caffe's HDF5 snapshot format (snapshot_format: HDF5): <prefix>_iter_N.caffemodel.h5 and
// .solverstate.h5, read and written as Caffe lays them out, through the same in-memory messages
// as the binary format (NetParameter with blobs, SolverState).
//
//   weights:      data/<layer>/<i>  each learnable blob i of each layer, float, the blob's shape
//                 diff/<layer>/<i>  the same for the gradients, when the snapshot has them
//                 (a layer name with '/' in it, GoogLeNet's "conv1/7x7_s2", nests groups)
//   solver state: iter, current_step (one int each), learned_net (a string),
//                 history/<i> (the update rule's blobs, in parameter order), and dtrain's
//                 extension dtrain_layer_state/<k>/{name,state} (each layer's random stream and
//                 data position, for an exact resume; Caffe ignores it).
//
// Files are written atomically. Errors name the file and the dataset. Stateless.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/net.pb.h"
#include "proto/solver.pb.h"

namespace dtrain {

Status WriteWeightsHdf5(const NetParameter& weights, const std::string& path);
StatusOr<NetParameter> ReadWeightsHdf5(const std::string& path);

Status WriteSolverStateHdf5(const SolverState& state, const std::string& path);
StatusOr<SolverState> ReadSolverStateHdf5(const std::string& path);

// Whether `path` names an HDF5 snapshot (it ends in ".h5"), as Caffe decides.
bool IsHdf5SnapshotPath(const std::string& path);

// A weights file in either format: HDF5 by its name, else a binary (upgraded) .caffemodel.
StatusOr<NetParameter> ReadWeightsFile(const std::string& path);
// A solver state in either format, chosen as ReadWeightsFile chooses.
StatusOr<SolverState> ReadSolverStateFile(const std::string& path);

}  // namespace dtrain
