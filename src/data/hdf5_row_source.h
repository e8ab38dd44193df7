// Hdf5RowSource: the rows of the HDF5 files an HDF5Data layer lists, as a RecordSource.
//
// The list file names HDF5 files (whitespace-separated, paths as given); each position reads one
// row (first axis) of every dataset named at Open, in order, file after file, wrapping around at
// the end of the list. With shuffle, the file order is shuffled at the start and at each wrap,
// and the row order of each file when it is reached, drawing from a copy of the Rng given at
// Open: the sequence depends on that Rng's state and the position only. Seeking back replays the
// sequence from its start using only the files' row counts. Every dataset of a file must have
// the same number of rows and every file the same row shapes as the first file of the list;
// a file that disagrees is an error when the cursor reaches it (MoveTo), naming the file and the
// dataset. One file's datasets are held in memory at a time. One thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "data/hdf5_file.h"
#include "data/record_source.h"

namespace dtrain {

class Hdf5RowSource : public RecordSource {
 public:
  // Reads the list `list_path` (a missing list is NotFound) and the row shapes of `datasets` in
  // its first file, and enters position 0.
  static StatusOr<std::unique_ptr<Hdf5RowSource>> Open(const std::string& list_path,
                                                       std::vector<std::string> datasets,
                                                       bool shuffle, const Rng& rng);

  // Rows of one pass over the list, or -1 while a file's count is not known yet.
  int64_t RecordCount() const override;
  // Moves to `position` and loads its file: row(t) is then that position's row of dataset t.
  Status ReadAt(int64_t position) override;
  // Moves the cursor to `position`, checking the files it enters, without loading a file.
  Status MoveTo(int64_t position);

  // Dataset `t`'s row shape (without the row axis), and the current row's values.
  const std::vector<int>& row_shape(size_t t) const { return row_shapes_[t]; }
  const float* row(size_t t) const;

 private:
  Hdf5RowSource() = default;
  // Back to the sequence's start (the Rng's first shuffles), then forward `positions`.
  Status Seek(int64_t positions);
  // Moves the cursor forward `positions` rows, across files, shuffling as it goes.
  Status Advance(int64_t positions);
  // Enters file slot `slot` at its first row (its row order drawn when shuffling).
  Status EnterFile(int slot);
  // The rows of file `file` (read once from its first dataset's shape, checked for all).
  StatusOr<int> RowsOf(int file);
  // Makes sure the current file's datasets are in memory.
  Status LoadCurrentFile();
  void Shuffle(std::vector<int>* order);

  std::vector<std::string> files_;
  std::vector<std::string> datasets_;
  std::vector<std::vector<int>> row_shapes_;  // per dataset, from the first file
  std::vector<int> rows_;                     // per file, -1 until known
  bool shuffle_ = false;
  Rng initial_rng_;  // the Rng before the first shuffle
  Rng rng_;

  std::vector<int> file_order_;  // file index at each slot
  std::vector<int> row_order_;   // row index at each position of the current file
  int slot_ = 0;                 // the current file's slot in file_order_
  int row_ = 0;                  // position in row_order_
  int64_t cursor_ = 0;           // the sequence position the cursor is on
  int loaded_file_ = -1;
  std::vector<Hdf5Array> loaded_;  // the loaded file's datasets
};

}  // namespace dtrain
