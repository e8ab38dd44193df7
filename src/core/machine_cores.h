// The cores this process may compute on, and how much of them other processes are using.
//
// UsableCores(): the CPUs of the process's affinity mask (what mpirun's --bind-to, taskset or a
// Slurm cpuset leave it), fewer where a cgroup CPU quota (cgroup v2 cpu.max, v1 cfs_quota_us)
// allows less; at least 1.
//
// CoresBusyWithOthers(window): sleeps for `window` and returns the CPU time that everything but
// this process spent on the affinity mask's CPUs during it, in cores (1.0: one core kept busy
// the whole window), from /proc/stat's per-CPU counters less this process's own CPU time.
// Returns nullopt where /proc/stat cannot be read or parsed. /proc/stat counts in clock ticks
// (usually 10 ms), so a window shorter than ~100 ms is coarse.
//
// Both are thread-safe and read the machine anew at every call.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtrain {

int UsableCores();

std::optional<double> CoresBusyWithOthers(std::chrono::milliseconds window);

// The busy clock ticks (user, nice, system, irq, softirq; not idle, iowait or steal) that the
// text of /proc/stat gives the listed CPUs; nullopt when a listed CPU has no well-formed line.
std::optional<int64_t> BusyTicksOfCpus(const std::string& proc_stat, const std::vector<int>& cpus);

}  // namespace dtrain
