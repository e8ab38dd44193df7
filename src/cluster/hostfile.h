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

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct Host {
  std::string name;  // host name or address
  int slots = 1;     // ranks it runs
};

// Ranks one host may run: more is a typo, not a machine.
constexpr int kMaxSlotsPerHost = 4096;

// OK for an IPv4 or IPv6 address or an RFC 1123 host name (dot-separated labels of 1 to 63
// letters, digits and '-', not starting or ending with '-'; 253 characters at most); otherwise
// an error quoting the name (control characters and other bytes escaped as \xNN).
Status CheckHostName(const std::string& name);

// OK for 1 <= slots <= kMaxSlotsPerHost, else an error naming `what`.
Status CheckSlots(int64_t slots, const std::string& what);

// Parses hostfile text; `origin` (the file name) prefixes errors with its line:
// "hosts.txt:3: bad slots value 'x'". A name that CheckHostName refuses, a name given twice and
// no hosts at all are errors.
StatusOr<std::vector<Host>> ParseHostfile(const std::string& text, const std::string& origin);
// Reads and parses the hostfile at `path`.
StatusOr<std::vector<Host>> ReadHostfile(const std::string& path);
// "name slots=N\n" per host.
std::string FormatHostfile(const std::vector<Host>& hosts);
// The sum of the hosts' slots.
int TotalSlots(const std::vector<Host>& hosts);

}  // namespace dtrain
