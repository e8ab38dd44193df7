// The fuzz target of the cluster parsers that read what the environment hands dtrain: Slurm's node
// lists (SLURM_JOB_NODELIST) and task counts (SLURM_TASKS_PER_NODE), and the JSON of
// `aws ec2 describe-instances`. Shared by the libFuzzer binary (cluster_lists_fuzz.cc,
// scripts/fuzz.sh) and the gtest that runs it on random and mutated input in every test run.
//
// Feeds `bytes` to each parser and checks what must hold for any input: an expanded node list names
// at most 2^18 hosts, none empty or holding a separator or bracket; task counts cover exactly the
// nodes asked for, all positive; EC2 addresses are non-empty. Aborts (a fuzzer finding) when that
// fails; errors are fine.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include "cluster/ec2_hosts.h"
#include "cluster/slurm_nodelist.h"

namespace dtrain {

inline void FuzzClusterLists(std::string_view bytes) {
  const std::string text(bytes);
  auto names = ExpandSlurmNodeList(text);
  if (names.ok()) {
    if (names->size() > (1u << 18)) std::abort();
    for (const std::string& name : *names) {
      if (name.empty() || name.find_first_of(",[] \t\r\n\v\f") != std::string::npos) std::abort();
    }
  }
  for (int nodes : {1, 3, 64}) {
    auto counts = ExpandSlurmTasksPerNode(text, nodes);
    if (!counts.ok()) continue;
    if (static_cast<int>(counts->size()) != nodes) std::abort();
    for (int count : *counts) {
      if (count < 1) std::abort();
    }
  }
  auto addresses = Ec2PrivateAddresses(text, "fuzz.json", std::nullopt);
  if (addresses.ok()) {
    for (const std::string& address : *addresses) {
      if (address.empty()) std::abort();
    }
  }
}

}  // namespace dtrain
