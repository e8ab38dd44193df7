#include "core/file_bytes.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace dtrain {

Status ReadFileInto(const std::string& path, std::string* bytes) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    const int error = errno;
    const std::string message = std::string("cannot open: ") + std::strerror(error);
    return error == ENOENT ? NotFound(message) : IoError(message);
  }
  bytes->clear();
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0) bytes->append(chunk, got);
  const int error = std::ferror(file) ? errno : 0;
  std::fclose(file);
  if (error) return IoError(std::string("read error: ") + std::strerror(error));
  return Status::Ok();
}

}  // namespace dtrain
