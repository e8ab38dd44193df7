// The memory this process may use: the machine's physical memory, or less where a cgroup (a
// container, a Slurm job) limits it. Sizes read from files are checked against it before
// anything is allocated, so that an absurd size is refused with the figure instead of ending in
// std::bad_alloc or the kernel's OOM killer.
#pragma once

#include <cstdint>
#include <string>

namespace dtrain {

// In bytes; read once (the first call) and then cached. Thread-safe.
int64_t MachineMemoryBytes();

// "12.3 GiB", "512 MiB", "7.0 TiB": a byte count for messages.
std::string ByteSize(double bytes);

}  // namespace dtrain
