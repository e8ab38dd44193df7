#include "core/machine_cores.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

namespace dtrain {
namespace {

// The CPUs of this process's affinity mask, in increasing order; empty if it cannot be read.
std::vector<int> AffinityCpus() {
  std::vector<int> cpus;
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  const int count = static_cast<int>(std::max(1024L, configured));
  cpu_set_t* set = CPU_ALLOC(count);
  if (set == nullptr) return cpus;
  const size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set);
  if (sched_getaffinity(0, size, set) == 0) {
    for (int cpu = 0; cpu < count; ++cpu) {
      if (CPU_ISSET_S(cpu, size, set)) cpus.push_back(cpu);
    }
  }
  CPU_FREE(set);
  return cpus;
}

// Whole cores a cgroup CPU quota allows (rounded up), or 0 when there is no quota.
int CgroupQuotaCores() {
  double quota = -1, period = 0;
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string max;
  if (v2 >> max >> period) {
    if (max == "max") return 0;
    try {
      quota = std::stod(max);
    } catch (...) {
      return 0;
    }
  } else {
    std::ifstream v1_quota("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
    std::ifstream v1_period("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
    if (!(v1_quota >> quota) || !(v1_period >> period)) return 0;
  }
  if (quota <= 0 || period <= 0) return 0;
  return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

std::optional<std::string> ReadProcStat() {
  std::ifstream in("/proc/stat");
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double ProcessCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace

int UsableCores() {
  int cores = static_cast<int>(AffinityCpus().size());
  if (cores == 0) cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int quota = CgroupQuotaCores();
  if (quota > 0) cores = std::min(cores, quota);
  return std::max(1, cores);
}

std::optional<int64_t> BusyTicksOfCpus(const std::string& proc_stat, const std::vector<int>& cpus) {
  std::vector<bool> seen(cpus.size(), false);
  int64_t busy = 0;
  std::istringstream lines(proc_stat);
  std::string line;
  while (std::getline(lines, line)) {
    // "cpuN user nice system idle iowait irq softirq steal ..."; the total line "cpu " has no N.
    if (line.compare(0, 3, "cpu") != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') {
      continue;
    }
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    int64_t user, nice, system, idle, iowait, irq, softirq;
    if (!(fields >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) {
      continue;
    }
    const auto at = std::lower_bound(cpus.begin(), cpus.end(), cpu);
    if (at == cpus.end() || *at != cpu) continue;
    seen[at - cpus.begin()] = true;
    busy += user + nice + system + irq + softirq;
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) return std::nullopt;
  return busy;
}

std::optional<double> CoresBusyWithOthers(std::chrono::milliseconds window) {
  const std::vector<int> cpus = AffinityCpus();
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  if (cpus.empty() || ticks_per_second <= 0) return std::nullopt;

  const auto wall_start = std::chrono::steady_clock::now();
  const double own_start = ProcessCpuSeconds();
  const std::optional<std::string> stat_start = ReadProcStat();
  std::this_thread::sleep_for(window);
  const std::optional<std::string> stat_end = ReadProcStat();
  const double own = ProcessCpuSeconds() - own_start;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!stat_start || !stat_end || wall <= 0) return std::nullopt;

  const std::optional<int64_t> busy_start = BusyTicksOfCpus(*stat_start, cpus);
  const std::optional<int64_t> busy_end = BusyTicksOfCpus(*stat_end, cpus);
  if (!busy_start || !busy_end) return std::nullopt;
  const double busy =
      static_cast<double>(*busy_end - *busy_start) / static_cast<double>(ticks_per_second);
  return std::max(0.0, busy - own) / wall;
}

}  // namespace dtrain
