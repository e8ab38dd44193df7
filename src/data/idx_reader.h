// IDX files: the format of MNIST and Fashion-MNIST.
//
// An IDX file is a big-endian header followed by uint8 values:
//   images: magic 2051 (0x00000803), count, rows, cols, then count*rows*cols pixels (row-major)
//   labels: magic 2049 (0x00000801), count, then count labels
// Files may be plain or gzip-compressed (as Debian's dataset-fashion-mnist ships them); zlib
// reads both. A missing file is NotFound; a wrong magic number or a file shorter than its header
// says is DataLoss naming the file and the expected and actual sizes. Trailing bytes are ignored.
// Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

constexpr uint32_t kIdxImagesMagic = 2051;
constexpr uint32_t kIdxLabelsMagic = 2049;

struct IdxImages {
  int count = 0;
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> pixels;  // count * rows * cols, image after image, row-major
};

StatusOr<IdxImages> ReadIdxImages(const std::string& path);
StatusOr<std::vector<uint8_t>> ReadIdxLabels(const std::string& path);

}  // namespace dtrain
