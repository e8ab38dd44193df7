// What `dtrain launch --max-restarts` needs to know of the job it restarts and how it changes
// the job's command line: where the job's snapshots are (rank 0's resolved solver,
// distributed/rank_job.h), and the command of the K-th restart (resume from the
// latest complete snapshot, solver/latest_snapshot.h, marked as restart K with its reason).
// The command line is read with cluster/job_command_line.h. Reads the solver and net files;
// otherwise pure.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct JobTarget {
  std::string snapshot_prefix;  // rank 0's, resolved as `dtrain train` resolves it
};

// `job` is the dtrain command after `--` ({"train", "--solver=S", ...}); `ranks` the job's.
StatusOr<JobTarget> ResolveJobTarget(const std::vector<std::string>& job, int ranks);

// `job` without its --snapshot, --weights, --data-server-uri and --restart-* flags, then resuming
// from `solverstate` (none: from the start, with the job's own --weights) as restart `restart`.
std::vector<std::string> RestartedJob(const std::vector<std::string>& job,
                                      const std::string& solverstate, int restart,
                                      const std::string& reason);

}  // namespace dtrain
