#include "core/file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dtrain {
namespace {

// Reads what is left of `fd` into `bytes`; a regular file's size, when known, is read in one call.
Status ReadAll(int fd, std::string* bytes) {
  struct stat info {};
  const bool regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  // One byte more than the size, so that a file that grew is still read to its end.
  size_t want = regular ? static_cast<size_t>(info.st_size) + 1 : size_t{1} << 16;
  size_t have = 0;
  for (;;) {
    if (bytes->size() < have + want) bytes->resize(have + want);
    const ssize_t got = read(fd, bytes->data() + have, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      bytes->resize(have);
      return IoError(std::string("read error: ") + std::strerror(errno));
    }
    have += static_cast<size_t>(got);
    // A regular file reads short only at its end.
    if (got == 0 || (regular && static_cast<size_t>(got) < want)) break;
    want = size_t{1} << 16;
  }
  bytes->resize(have);
  return Status::Ok();
}

}  // namespace

Status ReadFileInto(const std::string& path, std::string* bytes) {
  int fd;
  do {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int error = errno;
    const std::string message = std::string("cannot open: ") + std::strerror(error);
    return error == ENOENT ? NotFound(message) : IoError(message);
  }
  bytes->clear();
  const Status status = ReadAll(fd, bytes);
  close(fd);
  return status;
}

}  // namespace dtrain
