// Hostfiles: the machines of a job and how many ranks each runs, in Open MPI's hostfile format.
//
//   # comment
//   node01 slots=2
//   10.0.0.12            (slots=1)
//
// One host per line; `slots=N` (also `max_slots=N`, ignored) may follow the name; blank lines and
// '#' comments are skipped. The first host is the master: it runs rank 0 (and the data server,
// when there is one) and computes like every other host. Pure functions over values.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct Host {
  std::string name;  // host name or address
  int slots = 1;     // ranks it runs
};

// Parses hostfile text; `origin` (the file name) prefixes errors with its line:
// "hosts.txt:3: bad slots value 'x'". A name given twice is an error; no hosts is an error.
StatusOr<std::vector<Host>> ParseHostfile(const std::string& text, const std::string& origin);
// Reads and parses the hostfile at `path`.
StatusOr<std::vector<Host>> ReadHostfile(const std::string& path);
// "name slots=N\n" per host.
std::string FormatHostfile(const std::vector<Host>& hosts);
// The sum of the hosts' slots.
int TotalSlots(const std::vector<Host>& hosts);

}  // namespace dtrain
