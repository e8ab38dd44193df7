// A dtrain subcommand: its name, one-line summary, the flags it takes and what it runs.
// Commands are thin: they parse flags, call the library and turn a Status into an exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "core/status.h"

namespace dtrain {

struct Command {
  std::string name;
  std::string summary;
  std::string usage;  // positional arguments, e.g. "IMAGES LABELS OUT_LMDB"
  std::vector<FlagSpec> flags;
  std::function<Status(const Flags&)> run;
};

// Commands under one name: `dtrain cluster slurm-script`, `dtrain cluster aws`.
struct CommandGroup {
  std::string name;
  std::string summary;
  std::vector<Command> commands;
};

Command TrainCommand();
Command TestCommand();
Command TimeCommand();
Command ConvertCommand();
Command ComputeMeanCommand();
Command CheckCommand();
Command DataServerCommand();
Command HostsCommand();          // hosts_command.cc
CommandGroup ClusterCommands();  // cluster_command.cc: slurm-script, aws
CommandGroup UpgradeCommands();  // upgrade_command.cc: net, solver
CommandGroup ExportCommands();   // export_command.cc: onnx
Command LaunchCommand();
Command PreflightCommand();
Command VersionCommand();

// This binary's version: the project version and the commit it was configured at.
std::string DtrainVersion();
// `dtrain version`: dtrain's version and the oneDNN library it runs on.
void PrintVersion();
Command SplitListCommand();
Command PlotCommand();  // plot_command.cc

// Applies --threads (0 or absent: kernels::DefaultComputeThreads, logged) to the BLAS and any
// kernel thread pools.
Status ApplyThreadsFlag(const Flags& flags);

}  // namespace dtrain
