// snapshot_keep (a dtrain solver field): after a snapshot is complete, the snapshots of the same
// snapshot_prefix older than the newest `keep` iterations are removed, so that long runs that
// snapshot often do not fill the disk. A snapshot is the files "<prefix>_iter_<N>" + .caffemodel,
// .solverstate (or their .h5 forms); other files, and temporaries of writes in progress
// ("...tmp-<pid>"), are left alone. Each old pair goes state first, so that a removal cut short
// never leaves a .solverstate whose weights are gone. Stateless.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

// Removes the snapshots of `snapshot_prefix` older than the newest `keep` iterations (keep > 0);
// returns the paths removed. Files that cannot be removed are left (and not returned).
std::vector<std::string> RemoveOldSnapshots(const std::string& snapshot_prefix, int keep);

}  // namespace dtrain
