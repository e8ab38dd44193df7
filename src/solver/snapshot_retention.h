// snapshot_keep (a dtrain solver field): after a snapshot is complete, the run's snapshots older
// than its newest `keep` are removed, so that long runs that snapshot often do not fill the disk.
//
// Only the run's own history is ever removed: the snapshots it wrote and, where it resumed from a
// snapshot of the same prefix at iteration R, that prefix's snapshots at iterations <= R found on
// disk then (earlier points of the same run, for the restarts of a killed job). Snapshots of
// other runs (say an old <prefix>_iter_1000 pair when a new run starts from scratch, or newer
// ones than the one resumed) are never touched: the newest snapshot this run wrote always stays.
// A snapshot is the files "<prefix>_iter_<N>" + .caffemodel, .solverstate (or their .h5 forms);
// other files and temporaries of writes in progress ("...tmp-<pid>") are left alone. Each old pair
// goes state first, so that a removal cut short never leaves a .solverstate whose weights are
// gone. Not thread-safe; one per solver.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

class SnapshotRetention {
 public:
  // keep 0 keeps every snapshot.
  SnapshotRetention(std::string snapshot_prefix, int keep);

  // The run resumed from `solverstate_path`: if it is a snapshot of this prefix at iteration R,
  // the prefix's snapshots at iterations <= R now on disk join the run's history.
  void ResumedFrom(const std::string& solverstate_path);

  // The run's snapshot of `iteration` is complete: removes the run's history but the newest
  // `keep`; returns the paths removed. Files that cannot be removed are left (and not returned).
  std::vector<std::string> Written(long long iteration);

  // The iterations of the run's history, oldest first.
  const std::vector<long long>& history() const { return history_; }

 private:
  std::string prefix_;
  int keep_;
  std::vector<long long> history_;
};

}  // namespace dtrain
