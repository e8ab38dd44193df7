// Slurm's compact lists: node lists (SLURM_JOB_NODELIST, "node[01-04,07],login") expanded to
// host names, and task counts (SLURM_TASKS_PER_NODE, "2(x3),1") expanded to one count per node.
//
// ExpandSlurmNodeList gives what `scontrol show hostnames LIST` prints, in its order:
//   - items are separated by ',' (or whitespace) outside brackets; empty items are skipped;
//   - "[...]" holds comma-separated numbers and LO-HI ranges (LO <= HI); each number is padded
//     with zeros to the width of LO as written: "n[08-11]" is n08 n09 n10 n11, "x[1-03]" x1 x2 x3;
//   - several brackets in one item multiply out, left to right, the last varying fastest:
//     "a[1-2]-b[3-4]" is a1-b3 a1-b4 a2-b3 a2-b4;
//   - as in Slurm 22.05, nothing may follow an item's last ']' ("n[1-2]x" is an error), a range
//     holds at most 65536 hosts, and a name listed twice is kept twice.
// Slurm shrugs off some malformed lists ("n[1-3" becomes "n]", "n[1-]" becomes n1); here any text
// that is not a list as above is an error quoting it. The whole list may name up to 262144 hosts
// (more than the largest machines have nodes; a fuzzer found that 2^20 names of a hostile list
// exhaust its memory budget).
//
// Pure functions over values; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// The host names of node list `list`, in order. Errors quote the item at fault:
// "bad Slurm node list item 'n[3-1]': range 3-1 runs backwards".
StatusOr<std::vector<std::string>> ExpandSlurmNodeList(const std::string& list);

// One task count per node from Slurm's "COUNT[(xREPEAT)],..." form ("2(x3),1" is 2 2 2 1; a
// plain "4" is 4 for every node). Counts are positive. The list must cover exactly `nodes` nodes,
// except that a single plain count applies to all of them.
StatusOr<std::vector<int>> ExpandSlurmTasksPerNode(const std::string& text, int nodes);

}  // namespace dtrain
