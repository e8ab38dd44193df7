// SlurmCluster: a Slurm cluster on the hosts of a NetnsCluster (tests/cluster/slurm_cluster.sh):
// munged and slurmctld on host 0, one slurmd per host, each node named after its host. Jobs start
// with srun (or sbatch) on host 0; KillOnBadExit=1, so a rank that dies ends its step.
//
// The constructor brings Slurm up on a cluster that is up; the destructor stops every Slurm
// process and removes the state directory (/tmp/slurm.<prefix>). `cluster` must outlive it
// (declare the SlurmCluster after the NetnsCluster). Needs root; tests check Unavailable() and
// skip. Not thread-safe.
#pragma once

#include <string>

#include "cluster/netns_cluster.h"

namespace dtrain::testing {

class SlurmCluster {
 public:
  // Why this machine cannot run Slurm on a NetnsCluster (a daemon or client missing); empty when
  // it can. Check NetnsCluster::Unavailable() first.
  static std::string Unavailable();

  explicit SlurmCluster(const NetnsCluster& cluster);
  ~SlurmCluster() { Down(); }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  // Whether every node came up idle; if not, up_output() says why.
  bool ok() const { return ok_; }
  const std::string& up_output() const { return up_output_; }

  // A command line (for RunShell) that runs `srun --mpi=pmix -N<nodes> -n<ranks> ARGS` on host 0,
  // ranks spread over the nodes by Slurm (block: 2 ranks on 2 nodes, one each), with one compute
  // thread each; `timeout` kills srun after `timeout_s`.
  std::string Srun(int nodes, int ranks, const std::string& args, int timeout_s = 120) const;
  // A command line (for RunShell) that runs `sbatch ARGS` on host 0 in the current directory,
  // with srun's MPI settings in the job's environment; `timeout` kills sbatch after `timeout_s`
  // (with --wait, sbatch lasts as long as the job).
  std::string Sbatch(const std::string& args, int timeout_s = 120) const;

  // Stops the daemons and the jobs' steps and removes the state. Safe to call more than once.
  void Down();

 private:
  const NetnsCluster& cluster_;
  bool ok_ = false;
  bool down_ = false;
  std::string up_output_;
};

}  // namespace dtrain::testing
