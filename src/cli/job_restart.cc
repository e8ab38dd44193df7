#include "cli/job_restart.h"

#include <algorithm>

#include "cli/command.h"
#include "distributed/rank_job.h"

namespace dtrain {

bool SetsFlag(const std::string& arg, const std::string& name) {
  for (const char* dashes : {"--", "-"}) {
    const std::string lead = dashes + name;
    if (arg == lead || arg.rfind(lead + "=", 0) == 0) return true;
  }
  return false;
}

StatusOr<JobTarget> ResolveJobTarget(const std::vector<std::string>& job, int ranks) {
  if (job.empty() || job[0] != "train") {
    return InvalidArgument(
        "--max-restarts restarts training jobs (-- train --solver=S ...), not '" +
        (job.empty() ? std::string() : job[0]) + "'");
  }
  DT_ASSIGN_OR_RETURN(
      const Flags flags,
      Flags::Parse(std::vector<std::string>(job.begin() + 1, job.end()), TrainCommand().flags));
  JobRequest request;
  request.solver_path = flags.Get("solver");
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
  const std::vector<std::string> dropped = {"restart-count", "restart-reason", "snapshot",
                                            "data-server-uri"};
  std::vector<std::string> out;
  for (size_t i = 0; i < job.size(); ++i) {
    const std::string& arg = job[i];
    std::vector<std::string> names = dropped;
    if (!solverstate.empty()) names.push_back("weights");  // a resume brings its own weights
    const auto match = std::find_if(names.begin(), names.end(),
                                    [&](const std::string& n) { return SetsFlag(arg, n); });
    if (match == names.end()) {
      out.push_back(arg);
      continue;
    }
    // "--name value": the value goes too.
    if (arg.find('=') == std::string::npos && i + 1 < job.size()) ++i;
  }
  if (!solverstate.empty()) out.push_back("--snapshot=" + solverstate);
  out.push_back("--restart-count=" + std::to_string(restart));
  out.push_back("--restart-reason=" + reason);
  return out;
}

}  // namespace dtrain
