#include "core/machine_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

namespace dtrain {
namespace {

// A cgroup limit file's value in bytes, or -1 when absent or unlimited ("max").
int64_t CgroupLimit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return -1;
  try {
    return static_cast<int64_t>(std::stoull(text));
  } catch (...) {
    return -1;
  }
}

int64_t ReadMachineMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  int64_t bytes = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : INT64_MAX;
  for (const char* path : {"/sys/fs/cgroup/memory.max",                       // cgroup v2
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {  // cgroup v1
    const int64_t limit = CgroupLimit(path);
    if (limit > 0) bytes = std::min(bytes, limit);
  }
  return bytes;
}

}  // namespace

int64_t MachineMemoryBytes() {
  static const int64_t bytes = ReadMachineMemory();
  return bytes;
}

std::string ByteSize(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

}  // namespace dtrain
