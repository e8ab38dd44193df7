// The job of `dtrain launch` (the dtrain command after `--`), checked on the launching machine
// before anything runs, by the dry run as by the real run, so that `--dry-run` never prints a plan
// for a job the launch would refuse and a refused job costs no mpirun: a train, test or time
// command whose flags that command itself accepts (no unknown flag, every switch a boolean), with
// the inputs it cannot run without (train: --solver; test and time: --model; never both
// --snapshot and --weights). Reads nothing.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// `job` is {"train", "--solver=S", ...}; errors start with "the job".
Status CheckJobCommand(const std::vector<std::string>& job);

}  // namespace dtrain
