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
// dtrain adds root-group attributes, which Caffe's reader ignores (so Caffe reads dtrain's files
// and dtrain reads Caffe's, which have none): `dtrain_checksum` on both files, the 64-bit FNV-1a
// of all their datasets (Hdf5FileReader::ContentChecksum), and `dtrain_learned_net_checksum` on
// the solver state, the weights file's dtrain_checksum: the pairing binary snapshots carry in
// their dtrain_checksum / dtrain_learned_net_checksum fields (core/proto_checksum.h). A reader
// verifies a present checksum and refuses a mismatch naming the file; the messages it returns
// carry them in those same fields (the weights' dtrain_checksum is then the HDF5 file's, not one
// of the message: clear it before writing the message as a binary .caffemodel).
//
// Values no run writes are refused naming the file and the dataset: weights (data/...) that are
// not finite or beyond kDivergedMagnitude (solver/divergence.h), history that is not finite, so
// damaged bytes never reach training to be reported as divergence. Shapes are checked before
// anything is allocated (data/hdf5_file.h).
//
// Files are written atomically. Errors name the file and the dataset. Stateless.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "proto/net.pb.h"
#include "proto/solver.pb.h"

namespace dtrain {

// `checksum` (optional) receives the dtrain_checksum the file was sealed with.
Status WriteWeightsHdf5(const NetParameter& weights, const std::string& path,
                        uint64_t* checksum = nullptr);
StatusOr<NetParameter> ReadWeightsHdf5(const std::string& path);

// state.dtrain_learned_net_checksum, when set, is written as the attribute of that name.
Status WriteSolverStateHdf5(const SolverState& state, const std::string& path);
StatusOr<SolverState> ReadSolverStateHdf5(const std::string& path);

// Whether `path` names an HDF5 snapshot (it ends in ".h5"), as Caffe decides.
bool IsHdf5SnapshotPath(const std::string& path);

// A weights file in either format: HDF5 by its name, else a binary (upgraded) .caffemodel.
StatusOr<NetParameter> ReadWeightsFile(const std::string& path);
// A solver state in either format, chosen as ReadWeightsFile chooses.
StatusOr<SolverState> ReadSolverStateFile(const std::string& path);

}  // namespace dtrain
