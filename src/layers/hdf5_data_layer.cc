#include "layers/hdf5_data_layer.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

std::string ShapeText(const std::vector<int>& shape) {
  std::string text;
  for (int d : shape) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

}  // namespace

Status HDF5DataLayer::Named(const Status& status) const {
  return Status(status.code(), Error(status.message()).message());
}

Status HDF5DataLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const HDF5DataParameter& p = param_.hdf5_data_param();
  if (param_.has_transform_param()) {
    return Error("HDF5Data does not transform data; remove transform_param");
  }
  if (p.source().empty()) return Error("hdf5_data_param.source is required");
  if (p.batch_size() == 0) return Error("hdf5_data_param.batch_size must be positive");
  DT_ASSIGN_OR_RETURN(batch_size_, Dimension("hdf5_data_param.batch_size", p.batch_size()));
  shuffle_ = p.shuffle();
  std::ifstream list(p.source());
  if (!list) {
    // NotFound, as for a missing LMDB: dtrain check shows the net without its data's shapes.
    return Status(StatusCode::kNotFound,
                  Error("cannot open the HDF5 file list '" + p.source() + "'").message());
  }
  for (std::string file; list >> file;) files_.push_back(file);
  if (files_.empty()) return Error("the HDF5 file list '" + p.source() + "' names no file");
  for (const std::string& name : param_.top()) datasets_.push_back(name);
  rows_.assign(files_.size(), -1);
  // Row shapes from the first file of the list, whatever the order: every file must agree.
  for (const std::string& name : datasets_) {
    StatusOr<std::vector<int>> shape = ReadHdf5Shape(files_[0], name);
    if (!shape.ok()) return Named(shape.status());
    row_shapes_.emplace_back(shape->begin() + 1, shape->end());
    if (std::find(row_shapes_.back().begin(), row_shapes_.back().end(), 0) !=
        row_shapes_.back().end()) {
      return Error(files_[0] + ": dataset '" + name + "' has shape " + ShapeText(*shape) +
                   ": its rows hold no value (a dimension of 0)");
    }
  }
  initial_rng_ = rng_.Serialize();
  return Seek(0);
}

Status HDF5DataLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (size_t t = 0; t < top.size(); ++t) {
    std::vector<int> shape{batch_size_};
    shape.insert(shape.end(), row_shapes_[t].begin(), row_shapes_[t].end());
    top[t]->Reshape(shape);
  }
  return Status::Ok();
}

void HDF5DataLayer::Shuffle(std::vector<int>* order) {
  for (size_t i = order->size(); i > 1; --i) {
    std::swap((*order)[i - 1], (*order)[rng_.UniformInt(static_cast<uint32_t>(i))]);
  }
}

StatusOr<int> HDF5DataLayer::RowsOf(int file) {
  if (rows_[file] >= 0) return rows_[file];
  int rows = -1;
  for (size_t t = 0; t < datasets_.size(); ++t) {
    StatusOr<std::vector<int>> shape = ReadHdf5Shape(files_[file], datasets_[t]);
    if (!shape.ok()) return Named(shape.status());
    const std::vector<int> row_shape(shape->begin() + 1, shape->end());
    if (row_shape != row_shapes_[t]) {
      return Error(files_[file] + ": dataset '" + datasets_[t] + "' has rows of " +
                   ShapeText(row_shape) + " but " + files_[0] + " has rows of " +
                   ShapeText(row_shapes_[t]));
    }
    if (rows >= 0 && (*shape)[0] != rows) {
      return Error(files_[file] + ": dataset '" + datasets_[t] + "' has " +
                   std::to_string((*shape)[0]) + " rows but '" + datasets_[0] + "' has " +
                   std::to_string(rows));
    }
    rows = (*shape)[0];
  }
  if (rows == 0) return Error(files_[file] + ": its datasets have no rows");
  rows_[file] = rows;
  return rows;
}

Status HDF5DataLayer::EnterFile(int slot) {
  slot_ = slot;
  row_ = 0;
  DT_ASSIGN_OR_RETURN(const int rows, RowsOf(file_order_[slot]));
  row_order_.resize(static_cast<size_t>(rows));
  std::iota(row_order_.begin(), row_order_.end(), 0);
  if (shuffle_) Shuffle(&row_order_);
  return Status::Ok();
}

Status HDF5DataLayer::Seek(int64_t positions) {
  if (!rng_.Deserialize(initial_rng_)) return Error("cannot reset the random stream");
  file_order_.resize(files_.size());
  std::iota(file_order_.begin(), file_order_.end(), 0);
  if (shuffle_) Shuffle(&file_order_);
  DT_RETURN_IF_ERROR(EnterFile(0));
  return Advance(positions);
}

Status HDF5DataLayer::Advance(int64_t positions) {
  while (positions > 0) {
    const int64_t left = static_cast<int64_t>(row_order_.size()) - row_;
    if (positions < left) {
      row_ += static_cast<int>(positions);
      return Status::Ok();
    }
    positions -= left;
    int next = slot_ + 1;
    if (next == static_cast<int>(file_order_.size())) {
      next = 0;
      if (shuffle_) Shuffle(&file_order_);
    }
    DT_RETURN_IF_ERROR(EnterFile(next));
  }
  return Status::Ok();
}

Status HDF5DataLayer::LoadCurrentFile() {
  const int file = file_order_[slot_];
  if (file == loaded_file_) return Status::Ok();
  loaded_file_ = -1;
  loaded_.clear();
  for (const std::string& name : datasets_) {
    StatusOr<Hdf5Array> array = ReadHdf5Array(files_[file], name);
    if (!array.ok()) return Named(array.status());
    loaded_.push_back(std::move(array).value());
  }
  loaded_file_ = file;
  return Status::Ok();
}

Status HDF5DataLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  DT_RETURN_IF_ERROR(seek_status_);
  for (int i = 0; i < batch_size_; ++i) {
    DT_RETURN_IF_ERROR(LoadCurrentFile());
    const int64_t row = row_order_[static_cast<size_t>(row_)];
    for (size_t t = 0; t < top.size(); ++t) {
      const int64_t row_values = top[t]->count(1);
      std::memcpy(top[t]->mutable_data() + i * row_values,
                  loaded_[t].values.data() + row * row_values,
                  static_cast<size_t>(row_values) * sizeof(float));
    }
    DT_RETURN_IF_ERROR(Advance(shard_count_));
  }
  consumed_ += static_cast<int64_t>(batch_size_) * shard_count_;
  return Status::Ok();
}

void HDF5DataLayer::SetShard(int index, int count) {
  shard_index_ = index;
  shard_count_ = count;
  // An error (a later file that disagrees) is returned by the next Forward.
  seek_status_ = Seek(consumed_ + shard_index_);
}

std::string HDF5DataLayer::SaveState() const { return std::to_string(consumed_); }

Status HDF5DataLayer::RestoreState(const std::string& state) {
  if (initial_rng_.empty()) return Error("cannot restore the data position before Setup");
  int64_t consumed = -1;
  try {
    size_t used = 0;
    consumed = std::stoll(state, &used);
    if (used != state.size()) consumed = -1;
  } catch (const std::exception&) {
    consumed = -1;
  }
  if (consumed < 0) return DataLoss("corrupt data position for layer '" + name() + "'");
  consumed_ = consumed;
  return Seek(consumed_ + shard_index_);
}

}  // namespace dtrain
