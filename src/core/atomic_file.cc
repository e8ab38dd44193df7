#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dtrain {

Status WriteFileAtomically(const std::string& path, const std::string& text, mode_t mode) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) {
    return IoError(path + ": cannot create temporary file " + tmp + ": " + std::strerror(errno));
  }
  auto fail = [&](const std::string& what) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return IoError(path + ": " + what + ": " + std::strerror(err));
  };
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write to " + tmp + " failed");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("fsync of " + tmp + " failed");
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail("close of " + tmp + " failed");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename of " + tmp + " failed");
  return Status::Ok();
}

}  // namespace dtrain
