// CIFAR-10 binary batches: data_batch_1.bin .. data_batch_5.bin and test_batch.bin.
//
// A batch file is a sequence of 3073-byte records: one label byte (0..9) then a 32x32 colour
// image as 3072 bytes, channel-major (1024 red, 1024 green, 1024 blue; each row-major), i.e.
// already CHW. The real files hold 10000 records each; any whole number of records is accepted.
// A missing file is NotFound; a size that is not a multiple of the record size (a truncated file)
// or a label above 9 is DataLoss naming the file. Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

constexpr int kCifarChannels = 3;
constexpr int kCifarSize = 32;
constexpr int kCifarImageBytes = kCifarChannels * kCifarSize * kCifarSize;  // 3072
constexpr int kCifarRecordBytes = 1 + kCifarImageBytes;                     // 3073
constexpr int kCifarTrainBatches = 5;

struct CifarBatch {
  int count = 0;
  std::vector<uint8_t> labels;  // count
  std::vector<uint8_t> pixels;  // count * 3072, image after image, CHW
};

StatusOr<CifarBatch> ReadCifarBatch(const std::string& path);

}  // namespace dtrain
