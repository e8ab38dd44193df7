#include "core/timeline.h"

#include <cstdio>

#include "core/logging.h"

namespace dtrain {
namespace {

long long Microseconds(Timeline::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

}  // namespace

StatusOr<std::unique_ptr<Timeline>> Timeline::Open(const std::string& path, int process) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<RecordFile> file,
                      RecordFile::Open(path, /*append=*/false, "--timeline"));
  // Names for the process and its two threads in the viewer.
  char header[512];
  std::snprintf(
      header, sizeof(header),
      "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"training\"}"
      "},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":1,\"args\":{\"name\":"
      "\"communication\"}},\n",
      process, process, process, process);
  DT_RETURN_IF_ERROR(file->Append(header, "the file's header"));
  return std::unique_ptr<Timeline>(new Timeline(std::move(file), process));
}

Timeline::~Timeline() {
  (void)file_->Append("{}]\n", "the closing bracket");  // the lines above each end with a comma
}

Status Timeline::status() {
  std::lock_guard<std::mutex> lock(mutex_);
  return file_->status();
}

void Timeline::Add(const char* name, Thread thread, Clock::time_point begin,
                   Clock::time_point end) {
  const long long ts = Microseconds(begin);
  const long long dur = Microseconds(end) - ts;
  // Names are ours (no quotes or backslashes to escape).
  char event[256];
  std::snprintf(event, sizeof(event),
                "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld},\n",
                name, process_, static_cast<int>(thread), ts, dur);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!file_->status().ok()) return;
  // Each event reaches the file as written: a stalled job ends in _Exit or MPI_Abort, and what it
  // did must be on disk.
  const Status written = file_->Append(event, "an event");  // no allocation per event
  if (!written.ok()) DT_LOG(ERROR) << written.message();
}

}  // namespace dtrain
