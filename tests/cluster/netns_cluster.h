// NetnsCluster: a cluster of a few "hosts" on this machine for multi-host tests. Each host is a
// Linux network namespace with its own address, hostname and link into one bridge; MPI jobs start
// on host 0 and reach the others over those links (tests/cluster/*.sh, docs/distributed.md).
//
// The constructor brings the cluster up (after removing any leftover of the same id) and the
// destructor tears it down, killing every process on its hosts, so that a test that fails, or
// cuts a link and leaves ranks behind, leaves nothing. Cluster `id` (1..99) is named dtn<id>-<i>
// on 10.231.<id>.0/24: clusters of different ids can exist side by side, so give each test its
// own. Needs root; tests check Unavailable() and skip. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "testing/run_command.h"

namespace dtrain::testing {

class NetnsCluster {
 public:
  // Why this machine cannot host a cluster: not root, a tool missing, namespaces not permitted.
  // Empty when it can.
  static std::string Unavailable();

  NetnsCluster(int id, int hosts);
  ~NetnsCluster() { Down(); }
  NetnsCluster(const NetnsCluster&) = delete;
  NetnsCluster& operator=(const NetnsCluster&) = delete;

  // Whether the cluster came up; if not, up_output() says why.
  bool ok() const { return ok_; }
  const std::string& up_output() const { return up_output_; }

  int hosts() const { return hosts_; }
  // What every name of the cluster starts with: "dtn3-".
  const std::string& prefix() const { return prefix_; }
  // Host i's name, which is also its namespace and its hostname: "dtn3-1".
  std::string Host(int i) const;
  // The bridge's namespace, which holds switch port p<i> of each host i.
  std::string Switch() const { return prefix_ + "sw"; }

  // A command line (for RunShell) that runs `mpirun ARGS` on host 0 with `ranks` ranks spread
  // evenly over the hosts, host by host (4 ranks on 2 hosts: ranks 0, 1 on host 0). mpirun ends
  // the job after `timeout_s`; `timeout` kills it 30 s later if it hangs even so.
  std::string Mpirun(int ranks, const std::string& args, int timeout_s = 120) const;
  // Runs a shell command on host i.
  CommandResult Run(int host, const std::string& command) const;
  // The processes on host i, only those whose name (/proc/PID/comm) is `name` if one is given.
  std::vector<int> Pids(int host, const std::string& name = "") const;
  // Bytes through host i's switch port so far, both directions together.
  long long LinkBytes(int host) const;
  // Cuts host i off: its switch port goes down.
  void LinkDown(int host) const;

  // Kills every process on the hosts and removes the cluster. Safe to call more than once.
  void Down();

  // For helpers that add to the cluster (SlurmCluster): tests/cluster/<name>, quoted for the
  // shell, and the environment (DTRAIN_NETNS_PREFIX=... DTRAIN_NETNS_NET=... ) that names this
  // cluster to the scripts there.
  std::string Script(const std::string& name) const;
  std::string Environment() const;

 private:
  std::string prefix_;  // "dtn3-"
  std::string net_;     // "10.231.3"
  int hosts_ = 0;
  bool ok_ = false;
  bool down_ = false;  // Down() has run
  std::string up_output_;
};

}  // namespace dtrain::testing
