// The names of a snapshot prefix's files: "<prefix>_iter_<N>" + .caffemodel, .solverstate or their
// .h5 forms, as Solver::Snapshot writes them. Shared by snapshot_keep's removal and the finder of
// the latest complete snapshot; temporaries of writes in progress ("...tmp-<pid>") and other
// files are no snapshot. Stateless.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dtrain {

// Every extension of a snapshot file, the solver states first.
inline constexpr const char* kSnapshotExtensions[] = {".solverstate", ".solverstate.h5",
                                                      ".caffemodel", ".caffemodel.h5"};

// The iteration of file name `name` if it is "<base>_iter_<N><extension>", else -1.
long long SnapshotIteration(const std::string& name, const std::string& base);

// The snapshot files of `snapshot_prefix` in its directory, by iteration (ascending): the file
// names (not paths) of each. An unreadable directory gives none.
std::map<long long, std::vector<std::string>> SnapshotFilesByIteration(
    const std::string& snapshot_prefix);

// The directory `snapshot_prefix` names its files in ("." for a bare name).
std::string SnapshotDirectory(const std::string& snapshot_prefix);

}  // namespace dtrain
