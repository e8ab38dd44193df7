#include "solver/snapshot_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/logging.h"
#include "core/stale_files.h"

namespace dtrain {

Status PrepareSnapshotOutput(const std::string& snapshot_prefix) {
  const std::filesystem::path prefix(snapshot_prefix);
  const std::string dir = prefix.parent_path().empty() ? "." : prefix.parent_path().string();
  // A probe file, created and removed: permission bits alone do not tell (root, read-only
  // mounts, ACLs).
  const std::string probe = snapshot_prefix + ".write-check-" + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) {
    return IoError("cannot write snapshots to '" + dir + "' (snapshot_prefix '" + snapshot_prefix +
                   "'): " + std::strerror(errno) +
                   "; create the directory or change snapshot_prefix");
  }
  close(fd);
  unlink(probe.c_str());
  for (const std::string& stale :
       RemoveStaleTemporaries(dir, prefix.filename().string() + "_iter_", ".tmp-")) {
    DT_LOG(INFO) << "Removed '" << stale << "', left by a snapshot write that did not finish";
  }
  return Status::Ok();
}

Status PrepareSnapshotOutputOf(const SolverParameter& solver) {
  if (solver.snapshot() <= 0 && solver.snapshot_interval_s() <= 0 && !solver.snapshot_after_train())
    return Status::Ok();
  return PrepareSnapshotOutput(solver.snapshot_prefix());
}

}  // namespace dtrain
