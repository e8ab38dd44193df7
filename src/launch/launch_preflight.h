// `dtrain launch`'s pre-flight: `dtrain preflight` on every host of a plan, in parallel, through
// the job's own launcher (mpirun or srun), each host given `timeout_s` to answer and asked to run
// the launching host's dtrain version; the report is printed ("pre-flight on 3 host(s):" and a
// line per host or problem).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "launch/launch_plan.h"

namespace dtrain {

struct PreflightSettings {
  int timeout_s = 30;   // seconds each host has to answer
  std::string version;  // `dtrain version` here, which every host must run (cli/command.h)
};

// Each host's problems (empty: ready), in options.hosts' order.
std::vector<std::vector<std::string>> RunPreflight(const LaunchOptions& options,
                                                   const LaunchPlan& plan,
                                                   const PreflightSettings& settings);

// The same as an error naming how many hosts failed.
Status RunPreflightOnHosts(const LaunchOptions& options, const LaunchPlan& plan,
                           const PreflightSettings& settings);

}  // namespace dtrain
