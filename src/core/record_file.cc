#include "core/record_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dtrain {

StatusOr<std::unique_ptr<RecordFile>> RecordFile::Open(const std::string& path, bool append,
                                                       const std::string& what) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd < 0) return IoError(what + ": cannot write " + path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return IoError(what + ": cannot write " + path + ": " + std::strerror(error));
  }
  // A pipe or a device (/dev/stdout) takes records too; only a regular file can be cut back.
  const off_t length = S_ISREG(st.st_mode) ? st.st_size : -1;
  return std::unique_ptr<RecordFile>(new RecordFile(fd, path, what, length));
}

RecordFile::~RecordFile() { ::close(fd_); }

Status RecordFile::Append(std::string_view record, const std::string& label) {
  if (!status_.ok()) return status_;
  size_t written = 0;
  int error = 0;
  while (written < record.size()) {
    const ssize_t n = ::write(fd_, record.data() + written, record.size() - written);
    if (n > 0) {
      written += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      error = n < 0 ? errno : ENOSPC;
      break;
    }
  }
  if (written == record.size()) {
    if (length_ >= 0) length_ += static_cast<off_t>(written);
    return Status::Ok();
  }
  // Cut off what part of the record reached the file.
  std::string end = "the file ends with the last whole record before it";
  if (written > 0 && (length_ < 0 || ::ftruncate(fd_, length_) != 0)) {
    end = "the part of it written stays (" +
          std::string(length_ < 0 ? "not a regular file" : std::strerror(errno)) + ")";
  }
  status_ = IoError(what_ + ": cannot write " + label + " to " + path_ + ": " +
                    std::strerror(error) + "; " + end + ", and it takes no more");
  return status_;
}

}  // namespace dtrain
