#include "cluster/slurm_cluster.h"

#include <unistd.h>

#include "testing/mpi_jobs.h"
#include "testing/run_command.h"

namespace dtrain::testing {

std::string SlurmCluster::Unavailable() {
  if (const std::string why = WhyNoMpiJobs(); !why.empty()) return why;
  for (const char* daemon : {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd"}) {
    if (access(daemon, X_OK) != 0) {
      return std::string(daemon) + " is not installed (scripts/install-deps.sh installs it)";
    }
  }
  for (const char* client : {"srun", "sinfo"}) {
    if (RunShell(std::string("command -v ") + client).exit_code != 0) {
      return std::string(client) + " is not installed (scripts/install-deps.sh installs it)";
    }
  }
  return "";
}

SlurmCluster::SlurmCluster(const NetnsCluster& cluster) : cluster_(cluster) {
  const CommandResult r =
      RunShell(cluster_.Environment() + cluster_.Script("slurm_cluster.sh") + " up");
  ok_ = r.exit_code == 0;
  up_output_ = r.output;
}

std::string SlurmCluster::Srun(int nodes, int ranks, const std::string& args, int timeout_s) const {
  return "timeout -s KILL " + std::to_string(timeout_s) + " env OMP_NUM_THREADS=1 " +
         cluster_.Environment() + cluster_.Script("srun.sh") + " --mpi=pmix -N" +
         std::to_string(nodes) + " -n" + std::to_string(ranks) + " " + args;
}

std::string SlurmCluster::Sbatch(const std::string& args, int timeout_s) const {
  return "timeout -s KILL " + std::to_string(timeout_s) + " env " + cluster_.Environment() +
         cluster_.Script("sbatch.sh") + " " + args;
}

void SlurmCluster::Down() {
  if (down_) return;
  RunShell(cluster_.Environment() + cluster_.Script("slurm_cluster.sh") + " down");
  down_ = true;
  ok_ = false;
}

}  // namespace dtrain::testing
