// HDF5 files as Caffe's HDF5Data and HDF5Output layers use them: numeric datasets read whole as
// float, and float datasets that grow by rows as a net writes them. Through the HDF5 C library.
//
// Every error comes back as a Status naming the file and the dataset; HDF5's own error printing
// is turned off. The serial HDF5 library is not thread-safe, so every call here holds one
// process-wide lock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// A dataset's dimensions and its values in row-major order.
struct Hdf5Array {
  std::vector<int> shape;
  std::vector<float> values;
};

// The dimensions of dataset `name` in file `path` (rank >= 1), without reading its values.
StatusOr<std::vector<int>> ReadHdf5Shape(const std::string& path, const std::string& name);

// Dataset `name` of `path`, converted to float: integer and floating-point datasets of rank >= 1
// read; other classes (strings, compounds, ...) are an error.
StatusOr<Hdf5Array> ReadHdf5Array(const std::string& path, const std::string& name);

// Writes float datasets that grow along their first axis. Create truncates `path` and makes one
// dataset per name, with rows of the given shape and none yet; Append adds rows. The file is
// open only inside each call, so between calls it is complete, unlocked and readable by others.
class Hdf5RowWriter {
 public:
  static StatusOr<Hdf5RowWriter> Create(const std::string& path,
                                        const std::vector<std::string>& names,
                                        const std::vector<std::vector<int>>& row_shapes);

  // Appends `rows` rows (rows x the dataset's row shape values) to dataset `index`.
  Status Append(int index, const float* values, int64_t rows);

 private:
  Hdf5RowWriter() = default;

  std::string path_;
  std::vector<std::string> names_;
  std::vector<std::vector<int>> row_shapes_;
  std::vector<int64_t> rows_;  // rows written to each dataset
};

}  // namespace dtrain
