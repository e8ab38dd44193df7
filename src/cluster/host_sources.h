// Where `dtrain hosts` finds a job's machines: a list given by hand, or the Slurm allocation it
// runs in (the EC2 source is ec2_hosts.h). Each source gives Hosts for FormatHostfile, in order:
// the first host is the master, which runs rank 0 (and the data server, when there is one) and
// computes like every other host.
//
// Pure functions over values (the caller reads the environment); thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/hostfile.h"
#include "core/status.h"

namespace dtrain {

// "a,b,c": names or addresses, each with `slots` slots. Empty items, names with whitespace,
// '#' or '=' (which a hostfile cannot carry) and names given twice are errors; so is no name.
StatusOr<std::vector<Host>> HostsFromList(const std::string& list, int slots);

// The Slurm variables a job's hosts come from; unset ones are nullopt.
struct SlurmEnvironment {
  std::optional<std::string> job_nodelist;     // SLURM_JOB_NODELIST: "node[01-04]"
  std::optional<std::string> ntasks_per_node;  // SLURM_NTASKS_PER_NODE: "2" (--ntasks-per-node)
  std::optional<std::string> tasks_per_node;   // SLURM_TASKS_PER_NODE: "2(x3),1" (always set)
};

// The allocation's nodes (slurm_nodelist.h), in Slurm's order. Slots: `slots` when positive,
// else SLURM_NTASKS_PER_NODE when set, else SLURM_TASKS_PER_NODE when set (both may be plain or
// in the "2(x3),1" form, mapped node by node), else 1.
StatusOr<std::vector<Host>> HostsFromSlurm(const SlurmEnvironment& env, int slots);

}  // namespace dtrain
