// The processes `dtrain launch` starts and watches: the data server's launcher, the training's
// (mpirun or srun), the pre-flight commands. Starting, waiting while passing the launcher's own
// stop signals on, stopping, capturing output. Process-wide state: the stop signal received.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace dtrain {

// SIGINT and SIGTERM to this process are recorded (StopSignalReceived) and passed on to the
// process being waited for.
void RecordStopSignals();
// The signal recorded since RecordStopSignals, or 0.
int StopSignalReceived();

// Starts argv; in its own process group when `own_group` (so that a Ctrl-C meant for the
// training does not stop it before its time).
StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, bool own_group);

// Runs argv to its end, its output passed on line by line to ours (stdout to stdout, stderr to
// stderr) and to `on_line` (called from one thread at a time); a stop signal recorded meanwhile
// is passed on to it. Its exit status (128 + N when signal N killed it).
StatusOr<int> RunWatchingOutput(const std::vector<std::string>& argv,
                                const std::function<void(const std::string&)>& on_line);

// SIGTERM to the process started with `own_group` and its group, then SIGKILL if it is still
// there after 10 s.
void StopProcessGroup(pid_t pid);

// Runs a command line through the shell; its exit status and output (stdout and stderr).
std::pair<int, std::string> Capture(const std::vector<std::string>& argv);

}  // namespace dtrain
