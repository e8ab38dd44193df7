// Leftovers of killed writers. dtrain writes files and directories under a temporary name that
// ends in the writer's process id ("x.caffemodel.tmp-1234", ".train_lmdb.partial.1234") and
// renames them when complete; a writer killed before the rename leaves its temporary behind.
// These helpers name such temporaries and remove those whose process is gone. Stateless.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

// Whether process `pid` is running on this machine.
bool ProcessRunning(long pid);

// Removes the entries of directory `dir` whose name starts with `prefix` and ends in
// `marker` + the id of a process that no longer runs; returns the paths removed.
std::vector<std::string> RemoveStaleTemporaries(const std::string& dir, const std::string& prefix,
                                                const std::string& marker);

}  // namespace dtrain
