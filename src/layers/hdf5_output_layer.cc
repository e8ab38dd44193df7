#include "layers/hdf5_output_layer.h"

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

const char* const kDatasets[] = {"data", "label"};

// A row of Caffe's dataset: the bottom as (N, C, H, W), its legacy 4-D view (a bottom of fewer
// axes gets trailing 1s: (N, C) is written (N, C, 1, 1)), less the first axis.
std::vector<int> RowShape(const Tensor& t) {
  std::vector<int> row(t.shape().begin() + 1, t.shape().end());
  row.resize(3, 1);
  return row;
}

}  // namespace

Status HDF5OutputLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const std::string& file = param_.hdf5_output_param().file_name();
  if (file.empty()) return Error("hdf5_output_param.file_name is required");
  for (int b = 0; b < 2; ++b) {
    if (bottom[b]->num_axes() < 1) {
      return Error(std::string("the ") + kDatasets[b] + " bottom needs a first (item) axis");
    }
    if (bottom[b]->num_axes() > 4) {
      return Error(std::string("the ") + kDatasets[b] + " bottom has shape " +
                   bottom[b]->ShapeString() +
                   ": Caffe's HDF5Output writes (N, C, H, W) datasets, 4 axes at most");
    }
    row_shapes_.push_back(RowShape(*bottom[b]));
  }
  StatusOr<Hdf5RowWriter> writer =
      Hdf5RowWriter::Create(file, {kDatasets[0], kDatasets[1]}, row_shapes_);
  if (!writer.ok()) return Error(writer.status().message());
  writer_.emplace(std::move(writer).value());
  return Status::Ok();
}

Status HDF5OutputLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (int b = 0; b < 2; ++b) {
    if (RowShape(*bottom[b]) != row_shapes_[b]) {
      return Error(std::string("the ") + kDatasets[b] + " bottom's shape changed to " +
                   bottom[b]->ShapeString() + "; the rows of the file's '" + kDatasets[b] +
                   "' dataset keep the shape of the first batch");
    }
  }
  return Status::Ok();
}

Status HDF5OutputLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  for (int b = 0; b < 2; ++b) {
    Status s = writer_->Append(b, bottom[b]->data(), bottom[b]->shape(0));
    if (!s.ok()) return Error(s.message());
  }
  return Status::Ok();
}

void HDF5OutputLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                   const TensorVec& bottom) {
  for (int b = 0; b < 2; ++b) {
    if (propagate_down[b]) bottom[b]->SetDiff(0.f);
  }
}

}  // namespace dtrain
