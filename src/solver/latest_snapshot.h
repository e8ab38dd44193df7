// The latest complete snapshot of a snapshot_prefix: what `dtrain launch --max-restarts` resumes
// a failed job from. Complete means the .solverstate (or .solverstate.h5) parses, names the
// iteration its file name says, and names a .caffemodel that parses and is the one written with
// it (the checksum the state holds, binary or HDF5: solver/hdf5_snapshot.h); a relative name is
// looked for beside the state, where Solver::Snapshot writes it. Damaged contents are found by
// the readers' checksums. Files being written never qualify: they
// carry a temporary name until complete (core/atomic_file.h). Reads files; stateless.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

struct SnapshotChoice {
  std::string solverstate;  // the state to resume from; empty: no complete snapshot
  long long iteration = -1;
  std::vector<std::string> passed_over;  // newer, incomplete ones: "path: why"
};

SnapshotChoice FindLatestCompleteSnapshot(const std::string& snapshot_prefix);

}  // namespace dtrain
