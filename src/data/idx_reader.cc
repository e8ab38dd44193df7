#include "data/idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace dtrain {
namespace {

// A gzFile (plain or compressed) closed on destruction.
class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {}
  ~GzFile() {
    if (file_) gzclose(file_);
  }
  bool is_open() const { return file_ != nullptr; }

  // Reads up to `size` bytes into `out`; *got is the number read. Errors name the file.
  Status Read(void* out, size_t size, size_t* got) {
    *got = 0;
    auto* bytes = static_cast<unsigned char*>(out);
    while (*got < size) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(size - *got, 1u << 20));
      const int n = gzread(file_, bytes + *got, chunk);
      if (n < 0) {
        int code = 0;
        const char* message = gzerror(file_, &code);
        return DataLoss("file '" + path_ +
                        "': read failed: " + (code == Z_ERRNO ? std::strerror(errno) : message));
      }
      if (n == 0) break;
      *got += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

 private:
  std::string path_;
  gzFile file_;
};

Status OpenError(const std::string& path) {
  const int open_errno = errno;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound("file '" + path + "' does not exist");
  return IoError("cannot open '" + path + "': " + std::strerror(open_errno));
}

uint32_t BigEndian(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Reads the header (`words` big-endian uint32s, the first being the magic) and checks the magic.
Status ReadHeader(GzFile& file, const std::string& path, uint32_t magic, const char* kind,
                  int words, uint32_t* header) {
  unsigned char raw[16];
  const size_t want = 4 * static_cast<size_t>(words);
  size_t got = 0;
  DT_RETURN_IF_ERROR(file.Read(raw, want, &got));
  if (got < 4) {
    return DataLoss("file '" + path + "' is truncated: expected a " + std::to_string(want) +
                    "-byte IDX " + kind + " header, got " + std::to_string(got) + " bytes");
  }
  header[0] = BigEndian(raw);
  if (header[0] != magic) {
    return DataLoss("file '" + path + "': bad magic number " + std::to_string(header[0]) +
                    ", expected " + std::to_string(magic) + " (IDX " + kind + ")");
  }
  if (got < want) {
    return DataLoss("file '" + path + "' is truncated: expected a " + std::to_string(want) +
                    "-byte IDX " + kind + " header, got " + std::to_string(got) + " bytes");
  }
  for (int i = 1; i < words; ++i) header[i] = BigEndian(raw + 4 * i);
  return Status::Ok();
}

// Reads exactly `size` payload bytes; fewer is DataLoss saying what was expected.
Status ReadPayload(GzFile& file, const std::string& path, uint64_t size, const std::string& what,
                   std::vector<uint8_t>* out) {
  // Grow as data arrives, so that a corrupt header claiming a huge count cannot make us allocate
  // more than the file holds.
  out->clear();
  constexpr uint64_t kChunk = uint64_t{1} << 24;
  while (out->size() < size) {
    const size_t offset = out->size();
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(size - offset, kChunk));
    out->resize(offset + chunk);
    size_t got = 0;
    DT_RETURN_IF_ERROR(file.Read(out->data() + offset, chunk, &got));
    if (got < chunk) {
      const uint64_t total = offset + got;
      return DataLoss("file '" + path + "' is truncated: expected " + std::to_string(size) +
                      " bytes of " + what + " after the header, got " + std::to_string(total));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<IdxImages> ReadIdxImages(const std::string& path) {
  GzFile file(path);
  if (!file.is_open()) return OpenError(path);
  uint32_t header[4];
  DT_RETURN_IF_ERROR(ReadHeader(file, path, kIdxImagesMagic, "images", 4, header));
  if (header[1] > INT32_MAX || header[2] > INT32_MAX || header[3] > INT32_MAX) {
    return DataLoss("file '" + path + "': implausible IDX images header (count " +
                    std::to_string(header[1]) + ", " + std::to_string(header[2]) + "x" +
                    std::to_string(header[3]) + ")");
  }
  IdxImages images;
  images.count = static_cast<int>(header[1]);
  images.rows = static_cast<int>(header[2]);
  images.cols = static_cast<int>(header[3]);
  const uint64_t size = uint64_t{header[1]} * header[2] * header[3];
  const std::string what = std::to_string(images.count) + " images of " +
                           std::to_string(images.rows) + "x" + std::to_string(images.cols);
  DT_RETURN_IF_ERROR(ReadPayload(file, path, size, "pixels (" + what + ")", &images.pixels));
  return images;
}

StatusOr<std::vector<uint8_t>> ReadIdxLabels(const std::string& path) {
  GzFile file(path);
  if (!file.is_open()) return OpenError(path);
  uint32_t header[2];
  DT_RETURN_IF_ERROR(ReadHeader(file, path, kIdxLabelsMagic, "labels", 2, header));
  if (header[1] > INT32_MAX) {
    return DataLoss("file '" + path + "': implausible IDX label count " +
                    std::to_string(header[1]));
  }
  std::vector<uint8_t> labels;
  DT_RETURN_IF_ERROR(ReadPayload(file, path, header[1],
                                 "labels (" + std::to_string(header[1]) + " labels)", &labels));
  return labels;
}

}  // namespace dtrain
