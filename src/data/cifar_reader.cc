#include "data/cifar_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace dtrain {

StatusOr<CifarBatch> ReadCifarBatch(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound("file '" + path + "' does not exist");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return IoError("cannot stat '" + path + "': " + ec.message());
  if (size == 0) {
    return DataLoss("file '" + path + "' is empty (0 bytes): a CIFAR-10 batch holds " +
                    std::to_string(kCifarRecordBytes) +
                    "-byte records (a failed download or copy?)");
  }
  if (size % kCifarRecordBytes != 0) {
    return DataLoss("file '" + path + "' is truncated: " + std::to_string(size) +
                    " bytes is not a whole number of " + std::to_string(kCifarRecordBytes) +
                    "-byte CIFAR-10 records (" + std::to_string(size / kCifarRecordBytes) +
                    " records and " + std::to_string(size % kCifarRecordBytes) +
                    " bytes; expected " +
                    std::to_string((size / kCifarRecordBytes + 1) * kCifarRecordBytes) + ")");
  }

  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return IoError("cannot open '" + path + "': " + std::strerror(errno));
  CifarBatch batch;
  batch.count = static_cast<int>(size / kCifarRecordBytes);
  batch.labels.resize(batch.count);
  batch.pixels.resize(static_cast<size_t>(batch.count) * kCifarImageBytes);
  std::vector<uint8_t> record(kCifarRecordBytes);
  Status status;
  for (int i = 0; i < batch.count && status.ok(); ++i) {
    if (std::fread(record.data(), 1, record.size(), file) != record.size()) {
      status = IoError("file '" + path + "': read failed at record " + std::to_string(i) + ": " +
                       (std::ferror(file) ? std::strerror(errno) : "unexpected end of file"));
    } else if (record[0] > 9) {
      status = DataLoss("file '" + path + "': record " + std::to_string(i) + " has label " +
                        std::to_string(record[0]) + "; CIFAR-10 labels are 0..9");
    } else {
      batch.labels[i] = record[0];
      std::memcpy(batch.pixels.data() + static_cast<size_t>(i) * kCifarImageBytes,
                  record.data() + 1, kCifarImageBytes);
    }
  }
  std::fclose(file);
  if (!status.ok()) return status;
  return batch;
}

}  // namespace dtrain
