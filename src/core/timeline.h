// Timeline: a Chrome trace (chrome://tracing, Perfetto) of what a training process spends its
// time on: forward, backward, update and test passes on the training thread, each gradient
// bucket's allreduce on the communication thread, and the training thread's wait for it.
//
// Events are written as they happen, one JSON object per line in Chrome's "JSON array format"
// (the closing bracket is optional there, so a killed run still leaves a readable file). Times
// are wall-clock microseconds since the epoch, so the files of ranks on different hosts line
// up; `process` (the rank) groups each file's events. Add may be called from any thread. An event
// that cannot be written (a full disk) is cut off whole and logged as an error at once; the file
// takes no more, and status() holds the error for the run to end with (core/record_file.h).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "core/record_file.h"
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

  // Ok, or why an event could not be written.
  Status status();

 private:
  Timeline(std::unique_ptr<RecordFile> file, int process)
      : file_(std::move(file)), process_(process) {}

  std::mutex mutex_;
  std::unique_ptr<RecordFile> file_;
  const int process_;
};

}  // namespace dtrain
