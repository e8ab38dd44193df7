// HDF5DataLayer: Caffe's "HDF5Data", batches of rows from HDF5 files.
//
// No bottoms; one or more tops, each named after the dataset it reads (e.g. tops "data" and
// "label" read datasets /data and /label). Parameters: hdf5_data_param.source, a text file that
// lists HDF5 files (whitespace-separated, paths as given, relative to the working directory as
// in Caffe); batch_size (> 0); shuffle (default false). Every dataset of a file must have the same
// number of rows (first axis, at least one) and every file the same row shape, with no dimension
// of 0; a top is batch_size x that row shape. A dataset whose shape is absurd (more values than
// this machine's memory, more than the file stores) is refused naming the file, the dataset and
// the shape before anything is allocated (data/hdf5_file.h). Integer and floating-point datasets
// read as float. transform_param is refused, as Caffe does: HDF5 data is used as stored.
//
// Rows are read in order, file after file, wrapping around at the end of the list. With shuffle,
// the file order is shuffled at the start and at each wrap, and the row order of each file when
// it is reached, from the layer's seed. One file is held in memory at a time. No gradient.
//
// Sharding (layers/sharded_source.h): shard i of n reads positions i, i + n, ... of that
// sequence. SaveState/RestoreState carry the positions consumed by the whole job, the same on
// every shard; a restore replays the sequence from its start using only the files' row counts.
#pragma once

#include <string>
#include <vector>

#include "data/hdf5_file.h"
#include "layers/layer.h"
#include "layers/sharded_source.h"

namespace dtrain {

class HDF5DataLayer : public Layer, public ShardedSource {
 public:
  HDF5DataLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "HDF5Data"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int MinTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

  void SetShard(int index, int count) override;
  // The positions consumed, as a decimal number.
  std::string SaveState() const override;
  Status RestoreState(const std::string& state) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  // Back to the sequence's start (the seed's first shuffles), then forward `positions`.
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
  // `status` with the layer named, its code kept (NotFound for a missing file).
  Status Named(const Status& status) const;

  std::vector<std::string> files_;
  std::vector<std::string> datasets_;         // one per top
  std::vector<std::vector<int>> row_shapes_;  // per top, from the first file
  std::vector<int> rows_;                     // per file, -1 until known
  int batch_size_ = 0;
  bool shuffle_ = false;
  std::string initial_rng_;  // rng_ before the first shuffle

  std::vector<int> file_order_;  // file index at each slot
  std::vector<int> row_order_;   // row index at each position of the current file
  int slot_ = 0;                 // the current file's slot in file_order_
  int row_ = 0;                  // position in row_order_
  int loaded_file_ = -1;
  std::vector<Hdf5Array> loaded_;  // the loaded file's datasets, one per top

  int shard_index_ = 0, shard_count_ = 1;
  int64_t consumed_ = 0;  // positions consumed by the whole job
  Status seek_status_;    // SetShard's seek, reported by Forward
};

}  // namespace dtrain
