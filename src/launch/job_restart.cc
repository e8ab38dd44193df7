#include "launch/job_restart.h"

#include "cluster/job_command_line.h"
#include "distributed/rank_job.h"

namespace dtrain {

StatusOr<JobTarget> ResolveJobTarget(const std::vector<std::string>& job, int ranks) {
  const JobCommandLine line = JobCommandLine::ParseCommand(job);
  if (job.empty() || job[0] != "train") {
    return InvalidArgument(
        "--max-restarts restarts training jobs (-- train --solver=S ...), not '" +
        (job.empty() ? std::string() : job[0]) + "'");
  }
  JobRequest request;
  request.solver_path = line.ValueOr("solver");
  if (request.solver_path.empty()) return InvalidArgument("the job has no --solver");
  request.world = ranks;
  DT_ASSIGN_OR_RETURN(const RankJob rank0, ResolveRankJob(request));
  JobTarget target;
  target.snapshot_prefix = rank0.solver.snapshot_prefix();
  return target;
}

std::vector<std::string> RestartedJob(const std::vector<std::string>& job,
                                      const std::string& solverstate, int restart,
                                      const std::string& reason) {
  JobCommandLine line = JobCommandLine::ParseCommand(job);
  for (const char* name : {"restart-count", "restart-reason", "snapshot", "data-server-uri"}) {
    line.Remove(name);
  }
  if (!solverstate.empty()) {
    line.Remove("weights");  // a resume brings its own weights
    line.Append("snapshot", solverstate);
  }
  line.Append("restart-count", std::to_string(restart));
  line.Append("restart-reason", reason);
  return line.words();
}

}  // namespace dtrain
