#include "data/hdf5_row_source.h"

#include <algorithm>
#include <fstream>
#include <numeric>

namespace dtrain {
namespace {

std::string ShapeText(const std::vector<int>& shape) {
  std::string text;
  for (int d : shape) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

}  // namespace

StatusOr<std::unique_ptr<Hdf5RowSource>> Hdf5RowSource::Open(const std::string& list_path,
                                                             std::vector<std::string> datasets,
                                                             bool shuffle, const Rng& rng) {
  std::unique_ptr<Hdf5RowSource> source(new Hdf5RowSource());
  std::ifstream list(list_path);
  if (!list) {
    // NotFound, as for a missing LMDB: dtrain check shows the net without its data's shapes.
    return NotFound("cannot open the HDF5 file list '" + list_path + "'");
  }
  for (std::string file; list >> file;) source->files_.push_back(file);
  if (source->files_.empty()) {
    return InvalidArgument("the HDF5 file list '" + list_path + "' names no file");
  }
  source->datasets_ = std::move(datasets);
  source->rows_.assign(source->files_.size(), -1);
  source->shuffle_ = shuffle;
  // Row shapes from the first file of the list, whatever the order: every file must agree.
  const std::string& first = source->files_[0];
  for (const std::string& name : source->datasets_) {
    DT_ASSIGN_OR_RETURN(const std::vector<int> shape, ReadHdf5Shape(first, name));
    std::vector<int> row_shape(shape.begin() + 1, shape.end());
    if (std::find(row_shape.begin(), row_shape.end(), 0) != row_shape.end()) {
      return InvalidArgument(first + ": dataset '" + name + "' has shape " + ShapeText(shape) +
                             ": its rows hold no value (a dimension of 0)");
    }
    source->row_shapes_.push_back(std::move(row_shape));
  }
  source->initial_rng_ = rng;
  DT_RETURN_IF_ERROR(source->Seek(0));
  return source;
}

int64_t Hdf5RowSource::RecordCount() const {
  int64_t count = 0;
  for (int rows : rows_) {
    if (rows < 0) return -1;
    count += rows;
  }
  return count;
}

const float* Hdf5RowSource::row(size_t t) const {
  int64_t row_values = 1;
  for (int d : row_shapes_[t]) row_values *= d;
  return loaded_[t].values.data() + row_order_[static_cast<size_t>(row_)] * row_values;
}

void Hdf5RowSource::Shuffle(std::vector<int>* order) {
  for (size_t i = order->size(); i > 1; --i) {
    std::swap((*order)[i - 1], (*order)[rng_.UniformInt(static_cast<uint32_t>(i))]);
  }
}

StatusOr<int> Hdf5RowSource::RowsOf(int file) {
  if (rows_[file] >= 0) return rows_[file];
  int rows = -1;
  for (size_t t = 0; t < datasets_.size(); ++t) {
    DT_ASSIGN_OR_RETURN(const std::vector<int> shape, ReadHdf5Shape(files_[file], datasets_[t]));
    const std::vector<int> row_shape(shape.begin() + 1, shape.end());
    if (row_shape != row_shapes_[t]) {
      return InvalidArgument(files_[file] + ": dataset '" + datasets_[t] + "' has rows of " +
                             ShapeText(row_shape) + " but " + files_[0] + " has rows of " +
                             ShapeText(row_shapes_[t]));
    }
    if (rows >= 0 && shape[0] != rows) {
      return InvalidArgument(files_[file] + ": dataset '" + datasets_[t] + "' has " +
                             std::to_string(shape[0]) + " rows but '" + datasets_[0] + "' has " +
                             std::to_string(rows));
    }
    rows = shape[0];
  }
  if (rows == 0) return InvalidArgument(files_[file] + ": its datasets have no rows");
  rows_[file] = rows;
  return rows;
}

Status Hdf5RowSource::EnterFile(int slot) {
  slot_ = slot;
  row_ = 0;
  DT_ASSIGN_OR_RETURN(const int rows, RowsOf(file_order_[slot]));
  row_order_.resize(static_cast<size_t>(rows));
  std::iota(row_order_.begin(), row_order_.end(), 0);
  if (shuffle_) Shuffle(&row_order_);
  return Status::Ok();
}

Status Hdf5RowSource::Seek(int64_t positions) {
  rng_ = initial_rng_;
  cursor_ = 0;
  file_order_.resize(files_.size());
  std::iota(file_order_.begin(), file_order_.end(), 0);
  if (shuffle_) Shuffle(&file_order_);
  DT_RETURN_IF_ERROR(EnterFile(0));
  return Advance(positions);
}

Status Hdf5RowSource::Advance(int64_t positions) {
  while (positions > 0) {
    const int64_t left = static_cast<int64_t>(row_order_.size()) - row_;
    if (positions < left) {
      row_ += static_cast<int>(positions);
      cursor_ += positions;
      return Status::Ok();
    }
    positions -= left;
    cursor_ += left;
    int next = slot_ + 1;
    if (next == static_cast<int>(file_order_.size())) {
      next = 0;
      if (shuffle_) Shuffle(&file_order_);
    }
    DT_RETURN_IF_ERROR(EnterFile(next));
  }
  return Status::Ok();
}

Status Hdf5RowSource::MoveTo(int64_t position) {
  return position < cursor_ ? Seek(position) : Advance(position - cursor_);
}

Status Hdf5RowSource::LoadCurrentFile() {
  const int file = file_order_[slot_];
  if (file == loaded_file_) return Status::Ok();
  loaded_file_ = -1;
  loaded_.clear();
  for (const std::string& name : datasets_) {
    DT_ASSIGN_OR_RETURN(Hdf5Array array, ReadHdf5Array(files_[file], name));
    loaded_.push_back(std::move(array));
  }
  loaded_file_ = file;
  return Status::Ok();
}

Status Hdf5RowSource::ReadAt(int64_t position) {
  DT_RETURN_IF_ERROR(MoveTo(position));
  return LoadCurrentFile();
}

}  // namespace dtrain
