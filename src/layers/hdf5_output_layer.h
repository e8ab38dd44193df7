// HDF5OutputLayer: Caffe's "HDF5Output", writes what reaches it to an HDF5 file.
//
// Two bottoms (Caffe's data and label), no tops. Parameter: hdf5_output_param.file_name,
// created (truncated) at Setup with datasets "data" and "label", float, whose rows have the
// bottoms' shapes after the first axis. Every Forward appends the bottoms' items as rows, opening
// and closing the file, so between forwards it holds every batch so far and other programs can
// read it (Caffe writes its datasets once and fails on the next batch). A later batch whose row
// shape differs is an error. The file is not part of the loss, so a bottom that needs a gradient
// (features of a training net) gets zero, as Caffe's empty backward leaves it.
#pragma once

#include <optional>
#include <vector>

#include "data/hdf5_file.h"
#include "layers/layer.h"

namespace dtrain {

class HDF5OutputLayer : public Layer {
 public:
  HDF5OutputLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "HDF5Output"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 0; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  std::optional<Hdf5RowWriter> writer_;
  std::vector<std::vector<int>> row_shapes_;  // of data and label, fixed at Setup
};

}  // namespace dtrain
