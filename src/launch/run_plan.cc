#include "launch/run_plan.h"

#include "cluster/shell_quote.h"
#include "core/logging.h"
#include "launch/launch_processes.h"

namespace dtrain {

StatusOr<RunOutcome> RunPlan(const LaunchPlan& plan) {
  RunOutcome outcome;
  pid_t server = 0;
  for (const LaunchStep& step : plan.steps) {
    DT_LOG(INFO) << "launch: " << step.role << ": " << ShellJoin(step.argv);
    if (step.role == "data server") {
      DT_ASSIGN_OR_RETURN(server, Spawn(step.argv, /*own_group=*/true));
      continue;
    }
    StatusOr<int> exit_code = RunWatchingOutput(
        step.argv, [&outcome](const std::string& line) { outcome.console.AddLine(line); });
    if (server != 0) {
      DT_LOG(INFO) << "launch: stopping the data server";
      StopProcessGroup(server);
    }
    DT_RETURN_IF_ERROR(exit_code.status());
    outcome.exit_code = *exit_code;
  }
  return outcome;
}

}  // namespace dtrain
