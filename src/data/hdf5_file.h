// HDF5 files as Caffe's HDF5Data and HDF5Output layers use them: numeric datasets read whole as
// float, and float datasets that grow by rows as a net writes them. Through the HDF5 C library.
//
// Every error comes back as a Status naming the file and the dataset; HDF5's own error printing
// is turned off. The serial HDF5 library is not thread-safe, so every call here holds one
// process-wide lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
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
// read; other classes (strings, compounds, ...) are an error. Shapes are checked as
// Hdf5FileReader checks them (below), here and in ReadHdf5Shape, before anything is allocated.
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

// An HDF5 file built in memory and written in one piece (snapshots): `path` is replaced
// atomically (core/atomic_file.h), so a reader sees the old file or the complete new one. Names
// are paths inside the file ("data/conv1/0"); missing groups are created.
class Hdf5ImageWriter {
 public:
  static StatusOr<std::unique_ptr<Hdf5ImageWriter>> Create();
  ~Hdf5ImageWriter();
  Hdf5ImageWriter(const Hdf5ImageWriter&) = delete;
  Hdf5ImageWriter& operator=(const Hdf5ImageWriter&) = delete;

  Status PutGroup(const std::string& name);
  Status PutFloats(const std::string& name, const std::vector<int>& shape, const float* values);
  // A one-element int dataset, as Caffe's hdf5_save_int writes.
  Status PutInt(const std::string& name, int value);
  // A scalar fixed-length string dataset, as Caffe's hdf5_save_string writes.
  Status PutString(const std::string& name, const std::string& value);
  // Raw bytes as a one-dimensional uint8 dataset.
  Status PutBytes(const std::string& name, const std::string& bytes);
  // Hdf5FileReader::ContentChecksum of what has been put so far.
  StatusOr<uint64_t> ContentChecksum();
  // A 64-bit unsigned attribute of the root group (replaced if present); attributes are not
  // part of ContentChecksum, and Caffe's readers ignore them.
  Status PutRootAttribute(const std::string& name, uint64_t value);
  Status WriteAtomically(const std::string& path);

 private:
  explicit Hdf5ImageWriter(int64_t file) : file_(file) {}
  int64_t file_;  // hid_t of the in-memory file
};

// Reads what Hdf5ImageWriter (or Caffe) writes. Errors name the file and the dataset. Every read
// checks first that the dataset's shape fits in an int per dimension and, as float, in this
// machine's memory, and that the file stores all the values the shape claims (a chunk never
// written, a contiguous block shorter than the shape): an absurd or damaged header is refused
// with the shape and sizes, never allocated.
class Hdf5FileReader {
 public:
  static StatusOr<std::unique_ptr<Hdf5FileReader>> Open(const std::string& path);
  ~Hdf5FileReader();
  Hdf5FileReader(const Hdf5FileReader&) = delete;
  Hdf5FileReader& operator=(const Hdf5FileReader&) = delete;

  bool Has(const std::string& name) const;
  // The names of a group's members, sorted as text.
  StatusOr<std::vector<std::string>> Members(const std::string& group) const;
  StatusOr<Hdf5Array> Floats(const std::string& name) const;
  StatusOr<int> Int(const std::string& name) const;
  // A string dataset (fixed-length), or a uint8 dataset's bytes.
  StatusOr<std::string> String(const std::string& name) const;
  // 64-bit FNV-1a (core/fnv1a.h) over every dataset, in name order: its name, type class and
  // value size, dimensions and values as stored. Attributes are not covered.
  StatusOr<uint64_t> ContentChecksum() const;
  // A root-group integer attribute written by PutRootAttribute; nullopt when there is none.
  StatusOr<std::optional<uint64_t>> RootAttribute(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  Hdf5FileReader(std::string path, int64_t file) : path_(std::move(path)), file_(file) {}
  std::string path_;
  int64_t file_;
};

}  // namespace dtrain
