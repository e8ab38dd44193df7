// One run of a launch plan (launch/launch_plan.h): the data server in the background, stopped
// when training ends, then the training, its output passed on to ours and read by a
// LostHostScanner (launch/lost_hosts.h). Each step is logged ("launch: training: mpirun ...").
// Starts and waits for processes (launch/launch_processes.h); not thread-safe.
#pragma once

#include "core/status.h"
#include "launch/launch_plan.h"
#include "launch/lost_hosts.h"

namespace dtrain {

// How a run of the job ended, and what its console said.
struct RunOutcome {
  int exit_code = 0;
  LostHostScanner console;
};

// An error where a process could not be started.
StatusOr<RunOutcome> RunPlan(const LaunchPlan& plan);

}  // namespace dtrain
