#include "cluster/slurm_script.h"

#include <regex>

#include "cluster/job_command_line.h"
#include "cluster/shell_quote.h"

namespace dtrain {
namespace {

bool Matches(const std::string& text, const char* pattern) {
  return std::regex_match(text, std::regex(pattern));
}

}  // namespace

bool IsSlurmTimeLimit(const std::string& time) {
  if (Matches(time, "[0-9]{1,7}")) return true;
  std::smatch m;
  if (!std::regex_match(time, m,
                        std::regex("(?:([0-9]{1,4})-)?([0-9]{1,3}):([0-9]{2}):([0-9]{2})"))) {
    return false;
  }
  const int hours = std::stoi(m[2]), minutes = std::stoi(m[3]), seconds = std::stoi(m[4]);
  if (minutes >= 60 || seconds >= 60) return false;
  return !m[1].matched || hours < 24;
}

StatusOr<std::string> SlurmScript(const SlurmScriptOptions& o) {
  if (o.nodes < 1)
    return InvalidArgument("--nodes must be at least 1, got " + std::to_string(o.nodes));
  if (o.ntasks_per_node < 1) {
    return InvalidArgument("--ntasks-per-node must be at least 1, got " +
                           std::to_string(o.ntasks_per_node));
  }
  if (o.cpus_per_task < 0) {
    return InvalidArgument("--cpus-per-task must be at least 1, got " +
                           std::to_string(o.cpus_per_task));
  }
  if (!o.time.empty() && !IsSlurmTimeLimit(o.time)) {
    return InvalidArgument("bad --time '" + o.time +
                           "': give MINUTES (90) or [D-]HH:MM:SS (02:30:00, 1-12:00:00)");
  }
  if (!o.partition.empty() && !Matches(o.partition, "[A-Za-z0-9_.-]{1,64}")) {
    return InvalidArgument("bad --partition '" + o.partition +
                           "': up to 64 letters, digits, '_', '-' or '.'");
  }
  if (!Matches(o.job_name, "[A-Za-z0-9_.+-]{1,128}")) {
    return InvalidArgument("bad --job-name '" + o.job_name +
                           "': 1 to 128 letters, digits, '_', '-', '.' or '+'");
  }
  if (o.log.empty() || o.log.find_first_of(" \t\r\n\"'") != std::string::npos) {
    return InvalidArgument("bad --log '" + o.log + "': a file name without blanks or quotes");
  }
  if (o.train_args.empty() || o.train_args[0] != "train") {
    return InvalidArgument("give the training command after '--': -- train --solver=S [flags]");
  }
  if (!JobCommandLine::ParseCommand(o.train_args).Has("solver")) {
    return InvalidArgument("the training command after '--' needs --solver=S");
  }

  const std::string k = std::to_string(o.ntasks_per_node);
  std::string s = "#!/bin/bash\n";
  s += "# dtrain train on " + std::to_string(o.nodes) + " node(s) x " + k +
       " rank(s), started by Slurm (srun --mpi=pmix).\n";
  s += "# Written by `dtrain cluster slurm-script`; submit with: sbatch THIS_FILE\n";
  s += "#SBATCH --job-name=" + o.job_name + "\n";
  s += "#SBATCH --nodes=" + std::to_string(o.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=" + k + "\n";
  if (o.cpus_per_task > 0) s += "#SBATCH --cpus-per-task=" + std::to_string(o.cpus_per_task) + "\n";
  if (!o.time.empty()) s += "#SBATCH --time=" + o.time + "\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  s += "#SBATCH --output=" + o.log + "\n";
  s += "set -euo pipefail\n";
  s += "\n";
  s += "# Compute threads per rank: the cores Slurm gives each task (--cpus-per-task), else this\n";
  s += "# node's cores shared among its " + k + " rank(s).\n";
  s += "if [ -n \"${SLURM_CPUS_PER_TASK:-}\" ]; then\n";
  s += "  export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK\n";
  s += "else\n";
  s += "  export OMP_NUM_THREADS=$(( $(nproc) / " + k + " > 0 ? $(nproc) / " + k + " : 1 ))\n";
  s += "fi\n";
  s += "echo \"dtrain: Slurm job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NODELIST:-?}:\" \\\n";
  s += "  \"${SLURM_NTASKS:-?} rank(s), $OMP_NUM_THREADS thread(s) each\"\n";
  s += "\n";
  s += "srun --mpi=pmix --kill-on-bad-exit=1 " + ShellQuote(o.dtrain) + " " +
       ShellJoin(o.train_args) + "\n";
  return s;
}

}  // namespace dtrain
