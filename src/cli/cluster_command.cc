// dtrain cluster slurm-script | aws: files that set up and run dtrain on a cluster: an sbatch
// script for a Slurm allocation, an AWS ParallelCluster 3 configuration with its node bootstrap.
#include <unistd.h>

#include <climits>
#include <cstdio>

#include "cli/command.h"
#include "cluster/slurm_script.h"
#include "core/atomic_file.h"

namespace dtrain {
namespace {

// The absolute path of this binary, which the generated script runs on every node (shared
// storage keeps it at the same path everywhere); "dtrain" (from PATH) when it cannot be read.
std::string ThisBinary() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, n) : "dtrain";
}

// Flags that must be positive integers when given; `fallback` otherwise.
StatusOr<int> IntFlag(const Flags& flags, const std::string& name, int fallback) {
  if (!flags.Has(name)) return fallback;
  return flags.GetInt(name);
}

Status RunSlurmScript(const Flags& flags) {
  if (!flags.positional().empty()) {
    return InvalidArgument("unexpected argument '" + flags.positional()[0] +
                           "' (the training command goes after '--')");
  }
  if (!flags.Has("nodes")) return InvalidArgument("--nodes=N is required");
  SlurmScriptOptions options;
  DT_ASSIGN_OR_RETURN(options.nodes, flags.GetInt("nodes"));
  DT_ASSIGN_OR_RETURN(options.ntasks_per_node, IntFlag(flags, "ntasks-per-node", 1));
  DT_ASSIGN_OR_RETURN(options.cpus_per_task, IntFlag(flags, "cpus-per-task", 0));
  if (flags.Has("cpus-per-task") && options.cpus_per_task < 1) {
    return InvalidArgument("--cpus-per-task must be at least 1, got " + flags.Get("cpus-per-task"));
  }
  options.time = flags.Get("time");
  options.partition = flags.Get("partition");
  options.job_name = flags.Get("job-name");
  options.log = flags.Get("log");
  options.dtrain = flags.Has("dtrain") ? flags.Get("dtrain") : ThisBinary();
  options.train_args = flags.after_dashdash();
  DT_ASSIGN_OR_RETURN(std::string script, SlurmScript(options));
  if (flags.Has("output")) return WriteFileAtomically(flags.Get("output"), script, 0755);
  std::fputs(script.c_str(), stdout);
  return Status::Ok();
}

Command SlurmScriptCommand() {
  return {"slurm-script",
          "print an sbatch script that trains with srun across N nodes",
          "--nodes=N [flags] -- train --solver=S [train flags]",
          {{"nodes", "nodes to train on (>= 1)"},
           {"ntasks-per-node", "ranks per node", false, "1"},
           {"cpus-per-task", "cores per rank (#SBATCH --cpus-per-task; sets OMP_NUM_THREADS)"},
           {"time", "time limit: MINUTES or [D-]HH:MM:SS (default: the partition's)"},
           {"partition", "Slurm partition (default: the default partition)"},
           {"job-name", "Slurm job name", false, "dtrain"},
           {"log", "the job's log file (sbatch --output; %x job name, %j job id)", false, "%x-%j.out"},
           {"dtrain", "the dtrain binary the nodes run (default: this binary's absolute path)"},
           {"output", "write the script here, atomically, executable (default: standard output)"}},
          RunSlurmScript};
}

}  // namespace

CommandGroup ClusterCommands() {
  return {"cluster", "files that set up and run dtrain on a cluster", {SlurmScriptCommand()}};
}

}  // namespace dtrain
