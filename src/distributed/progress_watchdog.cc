#include "distributed/progress_watchdog.h"

namespace dtrain {

ProgressWatchdog::ProgressWatchdog(std::chrono::milliseconds timeout, OnStall on_stall)
    : timeout_(timeout), on_stall_(std::move(on_stall)), thread_([this] { Watch(); }) {}

ProgressWatchdog::~ProgressWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void ProgressWatchdog::Begin(const char* operation) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    operation_ = operation;
    since_ = Clock::now();
  }
  changed_.notify_all();
}

void ProgressWatchdog::End() {
  std::lock_guard<std::mutex> lock(mutex_);
  operation_ = nullptr;
}

void ProgressWatchdog::Watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (!operation_) {
      changed_.wait(lock, [this] { return stop_ || operation_ != nullptr; });
      continue;
    }
    const Clock::time_point deadline = since_ + timeout_;
    const char* watched = operation_;
    const Clock::time_point started = since_;
    if (changed_.wait_until(lock, deadline,
                            [&] { return stop_ || operation_ != watched || since_ != started; })) {
      continue;  // finished, or another operation began
    }
    const std::string what = operation_;
    const double seconds = std::chrono::duration<double>(Clock::now() - since_).count();
    lock.unlock();
    on_stall_(what, seconds);
    return;  // one report
  }
}

}  // namespace dtrain
