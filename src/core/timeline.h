// Timeline: a Chrome trace (chrome://tracing, Perfetto) of what a training process spends its
// time on: forward, backward, update and test passes on the training thread, each gradient
// bucket's allreduce on the communication thread, and the training thread's wait for it.
//
// Events are written as they happen, one JSON object per line in Chrome's "JSON array format"
// (the closing bracket is optional there, so a killed run still leaves a readable file). Times
// are wall-clock microseconds since the epoch, so the files of ranks on different hosts line
// up; `process` (the rank) groups each file's events. Add may be called from any thread.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"

namespace dtrain {

class Timeline {
 public:
  using Clock = std::chrono::system_clock;
  // The threads events are drawn on.
  enum Thread { kTraining = 0, kCommunication = 1 };

  static StatusOr<std::unique_ptr<Timeline>> Open(const std::string& path, int process);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // One complete event [begin, end) named `name` ("forward", "allreduce bucket 2 (1024 KiB)").
  void Add(const char* name, Thread thread, Clock::time_point begin, Clock::time_point end);

 private:
  Timeline(std::FILE* file, int process) : file_(file), process_(process) {}

  std::mutex mutex_;
  std::FILE* file_;
  const int process_;
};

}  // namespace dtrain
