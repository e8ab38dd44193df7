#include "cluster/netns_cluster.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "testing/mpi_jobs.h"

namespace dtrain::testing {

std::string NetnsCluster::Unavailable() {
  if (geteuid() != 0) return "network namespaces need root";
  if (const std::string why = WhyNoMpiJobs(); !why.empty()) return why;
  for (const char* tool : {"ip", "nsenter", "unshare", "ping", "mpirun", "timeout"}) {
    if (RunShell(std::string("command -v ") + tool).exit_code != 0) {
      return std::string(tool) + " is not installed (scripts/install-deps.sh installs it)";
    }
  }
  const std::string probe = "dtn-probe-" + std::to_string(getpid());
  const CommandResult r = RunShell("ip netns add " + probe + " && ip netns del " + probe);
  if (r.exit_code != 0) return "cannot create a network namespace: " + r.output;
  return "";
}

NetnsCluster::NetnsCluster(int id, int hosts)
    : prefix_("dtn" + std::to_string(id) + "-"),
      net_("10.231." + std::to_string(id)),
      hosts_(hosts) {
  const CommandResult r =
      RunShell(Environment() + Script("netns_cluster.sh") + " up " + std::to_string(hosts));
  ok_ = r.exit_code == 0;
  up_output_ = r.output;
}

std::string NetnsCluster::Host(int i) const { return prefix_ + std::to_string(i); }

std::string NetnsCluster::Mpirun(int ranks, const std::string& args, int timeout_s) const {
  const int per_host = (ranks + hosts_ - 1) / hosts_;
  std::string placement;
  for (int i = 0; i < hosts_ && i * per_host < ranks; ++i) {
    placement += (placement.empty() ? "" : ",") + Host(i) + ":" + std::to_string(per_host);
  }
  return "timeout -s KILL " + std::to_string(timeout_s + 30) + " env " + Environment() +
         Script("mpirun.sh") + " --timeout " + std::to_string(timeout_s) + " --host " + placement +
         " -np " + std::to_string(ranks) + " " + args;
}

CommandResult NetnsCluster::Run(int host, const std::string& command) const {
  std::string quoted = "'";  // the command as one single-quoted shell word
  for (char c : command) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return RunShell(Script("on_host.sh") + " " + Host(host) + " /bin/sh -c " + quoted + "'");
}

std::vector<int> NetnsCluster::Pids(int host, const std::string& name) const {
  std::istringstream pids(RunShell("ip netns pids " + Host(host)).output);
  std::vector<int> found;
  for (int pid; pids >> pid;) {
    std::string comm;
    std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/comm"), comm);
    if (name.empty() || comm == name) found.push_back(pid);
  }
  return found;
}

long long NetnsCluster::LinkBytes(int host) const {
  // `ip netns exec` mounts the namespace's own /sys, where the switch ports are.
  const std::string port = "/sys/class/net/p" + std::to_string(host) + "/statistics/";
  const CommandResult r =
      RunShell("ip netns exec " + Switch() + " cat " + port + "rx_bytes " + port + "tx_bytes");
  std::istringstream in(r.output);
  long long rx = 0, tx = 0;
  in >> rx >> tx;
  return rx + tx;
}

void NetnsCluster::LinkDown(int host) const {
  RunShell("ip -n " + Switch() + " link set p" + std::to_string(host) + " down");
}

void NetnsCluster::Down() {
  if (down_) return;
  RunShell(Environment() + Script("netns_cluster.sh") + " down");
  down_ = true;
  ok_ = false;
}

std::string NetnsCluster::Script(const std::string& name) const {
  return std::string("'") + DTRAIN_SOURCE_DIR + "/tests/cluster/" + name + "'";
}

std::string NetnsCluster::Environment() const {
  return "DTRAIN_NETNS_PREFIX=" + prefix_ + " DTRAIN_NETNS_NET=" + net_ + " ";
}

}  // namespace dtrain::testing
