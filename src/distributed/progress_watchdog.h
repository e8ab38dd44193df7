// ProgressWatchdog: notices a collective operation that does not finish. Open MPI waits forever
// when a rank hangs (SIGSTOP, a stuck host) or a link is cut (measured across
// network-namespace hosts, tests/cluster/), so data-parallel training watches its own collectives:
// Begin/End bracket each one, and a thread calls `on_stall` (once) when one has been in flight
// longer than the timeout. The caller decides what a stall means (the dtrain command logs it and
// exits non-zero, which makes mpirun or srun end the whole job).
//
// Begin/End may be called from any thread; one operation is watched at a time (collectives are
// serialised). `on_stall` runs on the watchdog's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace dtrain {

class ProgressWatchdog {
 public:
  using OnStall = std::function<void(const std::string& operation, double seconds)>;

  ProgressWatchdog(std::chrono::milliseconds timeout, OnStall on_stall);
  ~ProgressWatchdog();
  ProgressWatchdog(const ProgressWatchdog&) = delete;
  ProgressWatchdog& operator=(const ProgressWatchdog&) = delete;

  // `operation` must outlive the matching End ("allreduce of gradient bucket 3", ...).
  void Begin(const char* operation);
  void End();

 private:
  using Clock = std::chrono::steady_clock;
  void Watch();

  const std::chrono::milliseconds timeout_;
  const OnStall on_stall_;
  std::mutex mutex_;
  std::condition_variable changed_;
  const char* operation_ = nullptr;  // in flight, or null
  Clock::time_point since_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace dtrain
