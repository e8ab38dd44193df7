#include "cluster/host_sources.h"

#include <set>

#include "cluster/slurm_nodelist.h"

namespace dtrain {

StatusOr<std::vector<Host>> HostsFromList(const std::string& list, int slots) {
  std::vector<Host> hosts;
  std::set<std::string> seen;
  size_t start = 0;
  int item = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(start, comma - start);
    ++item;
    const std::string where = "host list '" + list + "', item " + std::to_string(item);
    if (name.empty()) return InvalidArgument(where + " is empty");
    if (Status valid = CheckHostName(name); !valid.ok()) {
      return InvalidArgument(where + ": " + valid.message());
    }
    if (!seen.insert(name).second) {
      return InvalidArgument(where + ": host '" + name + "' is listed twice");
    }
    hosts.push_back({name, slots});
    start = comma + 1;
  }
  return hosts;
}

StatusOr<std::vector<Host>> HostsFromSlurm(const SlurmEnvironment& env, int slots) {
  if (!env.job_nodelist) {
    return InvalidArgument("not inside a Slurm allocation (SLURM_JOB_NODELIST is not set)");
  }
  auto names = ExpandSlurmNodeList(*env.job_nodelist);
  if (!names.ok()) return names.status().WithContext("SLURM_JOB_NODELIST");
  if (names->empty()) return InvalidArgument("SLURM_JOB_NODELIST is empty");
  const int nodes = static_cast<int>(names->size());
  std::vector<int> counts(nodes, slots > 0 ? slots : 1);
  if (slots <= 0) {
    const char* variable = env.ntasks_per_node ? "SLURM_NTASKS_PER_NODE" : "SLURM_TASKS_PER_NODE";
    const std::optional<std::string>& value =
        env.ntasks_per_node ? env.ntasks_per_node : env.tasks_per_node;
    if (value) {
      auto per_node = ExpandSlurmTasksPerNode(*value, nodes);
      if (!per_node.ok()) return per_node.status().WithContext(variable);
      counts = *per_node;
    }
  }
  std::vector<Host> hosts;
  std::set<std::string> seen;
  for (int i = 0; i < nodes; ++i) {
    const std::string& name = (*names)[i];
    if (Status valid = CheckHostName(name); !valid.ok()) {
      return InvalidArgument("SLURM_JOB_NODELIST: " + valid.message());
    }
    if (Status valid = CheckSlots(counts[i], "tasks for host '" + name + "'"); !valid.ok()) {
      return valid;
    }
    if (!seen.insert(name).second) {
      return InvalidArgument("SLURM_JOB_NODELIST: host '" + name + "' is listed twice");
    }
    hosts.push_back({name, counts[i]});
  }
  return hosts;
}

}  // namespace dtrain
