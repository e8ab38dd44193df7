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
// it is reached, from the layer's seed (data/hdf5_row_source.h). One file is held in memory at a
// time. A file that disagrees is an error of the batch that reaches it. No gradient.
//
// Sharding, prefetching (one batch ahead) and state are PrefetchingDataLayer's: shard i of n
// reads positions i, i + n, ... of that sequence. The state is the positions consumed by the
// whole job, a decimal number, the same on every shard; a restore replays the sequence from its
// start using only the files' row counts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/hdf5_row_source.h"
#include "layers/layer_inputs.h"
#include "layers/prefetching_data_layer.h"

namespace dtrain {

class HDF5DataLayer : public PrefetchingDataLayer {
 public:
  HDF5DataLayer(const LayerParameter& p, const LayerContext& c) : PrefetchingDataLayer(p, c) {}
  ~HDF5DataLayer() override { StopPrefetching(); }
  const char* type() const override { return "HDF5Data"; }
  // What the parameters name for it to read, and pointing its records elsewhere (layer_inputs.h).
  static LayerInputs Inputs(const LayerParameter& p);
  static void SetRecords(LayerParameter* p, const std::string& records);
  int MinTopBlobs() const override { return 1; }

 protected:
  Status SetUpSource(const TensorVec& top) override;
  Status LoadBatch(Batch* batch) override;
  RecordSource* source() override { return rows_.get(); }
  Status FillItem(int item, int64_t position, Batch* batch) override;
  Status RestoreLoader(const std::string& state) override;

 private:
  // Batch tensor `t`: data, label, then the batch's `more`.
  Tensor& BatchTop(Batch* batch, size_t t) const;

  std::unique_ptr<Hdf5RowSource> rows_;
};

}  // namespace dtrain
