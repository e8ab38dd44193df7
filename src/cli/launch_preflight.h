// `dtrain launch`'s pre-flight: `dtrain preflight` on every host of a plan, in parallel, through
// the job's own launcher (mpirun or srun), each host given `timeout_s` to answer; the report is
// printed ("pre-flight on 3 host(s):" and a line per host or problem).
#pragma once

#include <string>
#include <vector>

#include "cluster/launch_plan.h"
#include "core/status.h"

namespace dtrain {

// Each host's problems (empty: ready), in options.hosts' order.
std::vector<std::vector<std::string>> RunPreflight(const LaunchOptions& options,
                                                   const LaunchPlan& plan, int timeout_s);

// The same as an error naming how many hosts failed.
Status RunPreflightOnHosts(const LaunchOptions& options, const LaunchPlan& plan, int timeout_s);

}  // namespace dtrain
