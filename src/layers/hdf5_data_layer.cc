#include "layers/hdf5_data_layer.h"

#include <cstring>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status HDF5DataLayer::SetUpSource(const TensorVec& top) {
  const HDF5DataParameter& p = param_.hdf5_data_param();
  if (param_.has_transform_param()) {
    return Error("HDF5Data does not transform data; remove transform_param");
  }
  if (p.source().empty()) return Error("hdf5_data_param.source is required");
  if (p.batch_size() == 0) return Error("hdf5_data_param.batch_size must be positive");
  DT_ASSIGN_OR_RETURN(batch_size_, Dimension("hdf5_data_param.batch_size", p.batch_size()));
  std::vector<std::string> datasets(param_.top().begin(), param_.top().end());
  auto rows = Hdf5RowSource::Open(p.source(), std::move(datasets), p.shuffle(), rng_);
  if (!rows.ok()) return WithLayer(rows.status());
  rows_ = std::move(rows).value();
  top_shapes_.clear();
  for (int t = 0; t < param_.top_size(); ++t) {
    std::vector<int> shape{batch_size_};
    shape.insert(shape.end(), rows_->row_shape(t).begin(), rows_->row_shape(t).end());
    top_shapes_.push_back(std::move(shape));
  }
  return Status::Ok();
}

Tensor& HDF5DataLayer::BatchTop(Batch* batch, size_t t) const {
  if (t == 0) return batch->data;
  if (t == 1) return batch->label;
  return batch->more[t - 2];
}

Status HDF5DataLayer::FillItem(int item, int64_t position, Batch* batch) {
  const size_t tops = top_shapes_.size();
  if (item == 0) {
    batch->more.resize(tops > 2 ? tops - 2 : 0);
    for (size_t t = 0; t < tops; ++t) BatchTop(batch, t).Reshape(top_shapes_[t]);
  }
  for (size_t t = 0; t < tops; ++t) {
    Tensor& out = BatchTop(batch, t);
    const int64_t row_values = out.count(1);
    std::memcpy(out.mutable_data() + item * row_values, rows_->row(t),
                static_cast<size_t>(row_values) * sizeof(float));
  }
  return Status::Ok();
}

Status HDF5DataLayer::LoadBatch(Batch* batch) {
  DT_RETURN_IF_ERROR(PrefetchingDataLayer::LoadBatch(batch));
  // The cursor moves on to this shard's next row now, so that a file that disagrees is the error
  // of the batch that reaches it, as Caffe reports it.
  return rows_->MoveTo(PeekPosition());
}

Status HDF5DataLayer::RestoreLoader(const std::string& state) {
  DT_RETURN_IF_ERROR(PrefetchingDataLayer::RestoreLoader(state));
  return WithLayer(rows_->MoveTo(PeekPosition()));
}

LayerInputs HDF5DataLayer::Inputs(const LayerParameter& p) {
  LayerInputs in;
  in.format = RecordsFormat::kHdf5List;
  in.records = p.hdf5_data_param().source();
  return in;
}

void HDF5DataLayer::SetRecords(LayerParameter* p, const std::string& records) {
  p->mutable_hdf5_data_param()->set_source(records);
}

}  // namespace dtrain
