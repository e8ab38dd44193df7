// sbatch scripts for `dtrain train` across a Slurm allocation (`dtrain cluster slurm-script`).
//
// The script asks for `nodes` nodes with `ntasks_per_node` ranks each, sets each rank's compute
// threads (OMP_NUM_THREADS, which dtrain train reads) to Slurm's SLURM_CPUS_PER_TASK, or else to
// the node's cores shared among its ranks, and starts the ranks with
// `srun --mpi=pmix --kill-on-bad-exit=1 DTRAIN train ...`: Slurm starts the MPI ranks itself (no
// hostfile, no mpirun), and a rank that dies ends the step at once. The job runs in the directory
// sbatch was called from, so relative paths in the train arguments and the prototxt files are
// relative to it, as for a plain `dtrain train`.
//
// Pure: options in, script text (or an error naming the bad option) out; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct SlurmScriptOptions {
  int nodes = 1;                    // >= 1
  int ntasks_per_node = 1;          // ranks per node, >= 1
  int cpus_per_task = 0;            // 0: not asked for (#SBATCH --cpus-per-task omitted)
  std::string time;                 // "" (the partition's default), MINUTES or [D-]HH:MM:SS
  std::string partition;            // "" (the default partition) or letters, digits, '_', '-', '.'
  std::string job_name = "dtrain";  // letters, digits, '_', '-', '.', '+'
  std::string log = "%x-%j.out";    // sbatch's --output: %x job name, %j job id; no whitespace
  std::string dtrain = "dtrain";    // the binary the ranks run: a path every node can see
  std::vector<std::string> train_args;  // "train", "--solver=S", ...: shell-quoted into the script
};

StatusOr<std::string> SlurmScript(const SlurmScriptOptions& options);

// Whether `time` is a Slurm time limit this generator accepts: MINUTES ("90") or
// [D-]HH:MM:SS ("1-12:00:00", "02:30:00"; minutes and seconds below 60, hours below 24 after a
// day count).
bool IsSlurmTimeLimit(const std::string& time);

}  // namespace dtrain
