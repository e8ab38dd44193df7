// The launch planner: (hosts, job) -> the exact commands that run it (`dtrain launch`).
//
// The first host is the master: rank 0 runs there, and so does the data server when the job has
// one; it trains like every other host. Ranks fill each host's slots in hostfile order. Outside
// Slurm the commands are `mpirun` over the hostfile; inside an allocation they are `srun` steps.
// The data server is started the same way (one process on the master, `mpirun -np 1 --host` or
// `srun -N1 -n1 -w`), so it reaches the master by whatever means the training does, and stopping
// that launcher stops it.
//
// Pure: no I/O, no environment; the caller says whether it is inside Slurm. Unit-tested on the
// exact command lines (tests/launch/launch_plan_test.cc).
#pragma once

#include <string>
#include <vector>

#include "cluster/hostfile.h"
#include "core/status.h"

namespace dtrain {

struct LaunchOptions {
  std::vector<Host> hosts;
  std::string hostfile;                  // the file `hosts` came from, handed to mpirun
  int np = 0;                            // ranks; 0: every slot
  std::string dtrain = "dtrain";         // the dtrain binary, the same path on every host
  std::vector<std::string> job;          // the dtrain command to run: {"train", "--solver=S", ...}
  std::vector<std::string> data_server;  // `dtrain data-server` arguments; empty: no server
  int data_server_port = 5555;           // when data_server has no --listen
  int threads_per_rank = 0;              // OMP_NUM_THREADS and --threads; 0: dtrain's default
  std::string bind = "core";             // core: each rank on threads_per_rank cores; none
  std::string interface;                 // network interface for MPI's traffic; empty: any
  std::vector<std::string> forward_env;  // variables passed on to every rank
  bool slurm = false;                    // inside a Slurm allocation: srun instead of mpirun
  // srun's nodes (-N, -w) when they are not all of the allocation's (a restart on the hosts
  // left); empty: the allocation's.
  std::vector<std::string> slurm_nodes;
  std::string mpirun = "mpirun";
};

struct LaunchStep {
  std::string role;  // "data server", "training"
  std::vector<std::string> argv;
};

struct LaunchPlan {
  int ranks = 0;
  std::string master;
  std::string data_server_uri;    // tcp://MASTER:PORT, when there is a data server
  std::vector<LaunchStep> steps;  // in order: the data server (in the background), training
  // Host i runs ranks first_rank[i] .. first_rank[i] + ranks_on[i] - 1.
  std::vector<int> first_rank;
  std::vector<int> ranks_on;
};

// Checks the options (np within the slots, bind, a known job) and plans. Errors say which
// option is wrong.
StatusOr<LaunchPlan> PlanLaunch(const LaunchOptions& options);

// The plan as shell lines, for --dry-run: the data server's line ends with " &".
std::string FormatPlan(const LaunchPlan& plan);

}  // namespace dtrain
