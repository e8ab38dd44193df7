#include "core/timeline.h"

#include <cerrno>
#include <cstring>

namespace dtrain {
namespace {

long long Microseconds(Timeline::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

}  // namespace

StatusOr<std::unique_ptr<Timeline>> Timeline::Open(const std::string& path, int process) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) return IoError("cannot write timeline " + path + ": " + std::strerror(errno));
  std::fprintf(file, "[\n");
  // Names for the process and its two threads in the viewer.
  std::fprintf(
      file,
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"training\"}"
      "},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":1,\"args\":{\"name\":"
      "\"communication\"}},\n",
      process, process, process, process);
  return std::unique_ptr<Timeline>(new Timeline(file, process));
}

Timeline::~Timeline() {
  std::fprintf(file_, "{}]\n");  // the lines above each end with a comma
  std::fclose(file_);
}

void Timeline::Add(const char* name, Thread thread, Clock::time_point begin,
                   Clock::time_point end) {
  const long long ts = Microseconds(begin);
  const long long dur = Microseconds(end) - ts;
  std::lock_guard<std::mutex> lock(mutex_);
  // Names are ours (no quotes or backslashes to escape).
  std::fprintf(file_,
               "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld},\n",
               name, process_, static_cast<int>(thread), ts, dur);
  std::fflush(file_);  // a stalled job ends in _Exit or MPI_Abort: what it did must be on disk
}

}  // namespace dtrain
