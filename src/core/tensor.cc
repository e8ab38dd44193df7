#include "core/tensor.h"

#include <algorithm>
#include <sstream>

#include "proto/blob.pb.h"

namespace dtrain {

Tensor::Tensor()
    : data_(std::make_shared<std::vector<float>>()), diff_(std::make_shared<std::vector<float>>()) {}

Tensor::Tensor(const std::vector<int>& shape) : Tensor() { Reshape(shape); }

void Tensor::Reshape(const std::vector<int>& shape) {
  int64_t count = 1;
  for (int d : shape) {
    DT_CHECK_GE(d, 0);
    count *= d;
  }
  shape_ = shape;
  count_ = count;
  if (static_cast<int64_t>(data_->size()) < count) data_->resize(count);
}

int64_t Tensor::count(int start, int end) const {
  DT_CHECK(start >= 0 && start <= end && end <= num_axes());
  int64_t c = 1;
  for (int i = start; i < end; ++i) c *= shape_[i];
  return c;
}

int Tensor::CanonicalAxisIndex(int axis) const {
  DT_CHECK(axis >= -num_axes() && axis < num_axes());
  return axis < 0 ? axis + num_axes() : axis;
}

std::string ShapeToString(const std::vector<int>& shape) {
  std::ostringstream out;
  int64_t count = 1;
  for (int d : shape) {
    out << d << " ";
    count *= d;
  }
  out << "(" << count << ")";
  return out.str();
}

std::string Tensor::ShapeString() const { return ShapeToString(shape_); }

void Tensor::ShareData(const Tensor& other) {
  DT_CHECK_EQ(count_, other.count_);
  data_ = other.data_;
}

void Tensor::ShareDiff(const Tensor& other) {
  DT_CHECK_EQ(count_, other.count_);
  diff_ = other.diff_;
}

void Tensor::SetData(float value) { std::fill(data_->begin(), data_->begin() + count_, value); }
void Tensor::SetDiff(float value) { std::fill(mutable_diff(), mutable_diff() + count_, value); }

void Tensor::CopyFrom(const Tensor& source, bool copy_diff) {
  Reshape(source.shape());
  std::copy(source.data(), source.data() + count_, mutable_data());
  if (copy_diff) std::copy(source.diff(), source.diff() + count_, mutable_diff());
}

std::vector<int> ShapeFromProto(const BlobShape& shape) {
  return std::vector<int>(shape.dim().begin(), shape.dim().end());
}

static std::vector<int> ProtoShape(const BlobProto& proto) {
  if (proto.has_shape()) return ShapeFromProto(proto.shape());
  if (proto.has_num() || proto.has_channels() || proto.has_height() || proto.has_width()) {
    return {proto.num(), proto.channels(), proto.height(), proto.width()};
  }
  return {};
}

bool Tensor::ShapeEquals(const BlobProto& proto) const {
  std::vector<int> other = ProtoShape(proto);
  if (!proto.has_shape() && !other.empty()) {
    // Legacy 4-d shapes match a tensor with fewer axes padded with leading 1s, as in Caffe.
    std::vector<int> padded(4, 1);
    if (num_axes() > 4) return false;
    std::copy(shape_.begin(), shape_.end(), padded.begin() + (4 - num_axes()));
    return padded == other;
  }
  return other == shape_;
}

Status Tensor::FromProto(const BlobProto& proto, bool reshape) {
  std::vector<int> shape = ProtoShape(proto);
  if (reshape) {
    Reshape(shape);
  } else if (!ShapeEquals(proto)) {
    return InvalidArgument("shape mismatch: expected " + ShapeString() + ", file has " +
                           ShapeToString(shape));
  }
  const int64_t n = count_;
  if (proto.double_data_size() > 0) {
    if (proto.double_data_size() != n) return DataLoss("blob has wrong number of values");
    for (int64_t i = 0; i < n; ++i) (*data_)[i] = static_cast<float>(proto.double_data(i));
  } else if (proto.data_size() > 0) {
    if (proto.data_size() != n) {
      return DataLoss("blob has " + std::to_string(proto.data_size()) + " values, shape needs " +
                      std::to_string(n));
    }
    std::copy(proto.data().begin(), proto.data().end(), data_->begin());
  } else if (n > 0) {
    return DataLoss("blob of shape " + ShapeString() + " has no data");
  }
  if (proto.diff_size() == n && n > 0) std::copy(proto.diff().begin(), proto.diff().end(), mutable_diff());
  return Status::Ok();
}

void Tensor::ToProto(BlobProto* proto, bool write_diff) const {
  proto->Clear();
  for (int d : shape_) proto->mutable_shape()->add_dim(d);
  proto->mutable_data()->Reserve(static_cast<int>(count_));
  for (int64_t i = 0; i < count_; ++i) proto->add_data((*data_)[i]);
  if (write_diff) {
    for (int64_t i = 0; i < count_; ++i) proto->add_diff(diff()[i]);
  }
}

}  // namespace dtrain
