// RecordFile: an append-only file of whole records (a JSON line of --metrics, a TFRecord of
// --tensorboard), for run outputs written as training goes. Each Append is one write(2) of the
// whole record; where that fails or is cut short (a full disk, a quota, a file size limit), the
// file is cut back to its length before the record, so a reader never meets a torn record, and
// the error naming the file is kept (a pipe or device, /dev/stdout, cannot be cut back): the file
// takes no more records, and the caller reports the error (a run's output that is incomplete is
// never ended in silence). Records reach the kernel as written, so a crashed run keeps every record
// up to the crash. Owns its descriptor; not thread-safe.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace dtrain {

class RecordFile {
 public:
  // `append`: after what the file holds, else from empty. `what` names the file's role in
  // errors ("--metrics").
  static StatusOr<std::unique_ptr<RecordFile>> Open(const std::string& path, bool append,
                                                    const std::string& what);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  // Writes `record` whole or not at all. The first failure is returned and kept; later calls
  // write nothing and return it again. `label` says which record failed ("the display of
  // iteration 300").
  Status Append(std::string_view record, const std::string& label);

  // Ok, or the first failed Append's error.
  const Status& status() const { return status_; }
  const std::string& path() const { return path_; }

 private:
  RecordFile(int fd, std::string path, std::string what, off_t length)
      : fd_(fd), path_(std::move(path)), what_(std::move(what)), length_(length) {}
  int fd_;
  std::string path_, what_;
  off_t length_;  // the file's length after the last whole record; -1 for a pipe or device
  Status status_;
};

}  // namespace dtrain
