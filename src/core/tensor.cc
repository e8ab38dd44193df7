#include "core/tensor.h"

#include <algorithm>
#include <sstream>

#include "core/machine_memory.h"
#include "proto/blob.pb.h"

namespace dtrain {

Tensor::Tensor()
    : data_(std::make_shared<TensorValues>()), diff_(std::make_shared<TensorValues>()) {}

Tensor::Tensor(const std::vector<int>& shape) : Tensor() { Reshape(shape); }

namespace {

// The count of `shape`, or -1 when a dimension is negative, -2 when the count overflows.
int64_t CountOf(const std::vector<int>& shape) {
  int64_t count = 1;
  for (int d : shape) {
    if (d < 0) return -1;
    if (__builtin_mul_overflow(count, static_cast<int64_t>(d), &count)) return -2;
  }
  return count;
}

std::string DimsText(const std::vector<int>& shape) {
  std::string text;
  for (int d : shape) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text.empty() ? "(scalar)" : text;
}

}  // namespace

Status CheckTensorShape(const std::vector<int>& shape) {
  const int64_t count = CountOf(shape);
  if (count == -1) {
    return InvalidArgument("a tensor of shape " + DimsText(shape) + " has a negative dimension");
  }
  if (count == -2) {
    return InvalidArgument("a tensor of shape " + DimsText(shape) +
                           " has more values than a 64-bit count holds");
  }
  const int64_t limit = MachineMemoryBytes() / static_cast<int64_t>(sizeof(float));
  if (count > limit) {
    return InvalidArgument("a tensor of shape " + DimsText(shape) + " (" + std::to_string(count) +
                           " values, " + ByteSize(4.0 * static_cast<double>(count)) +
                           ") is larger than this machine's memory (" +
                           ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
  }
  return Status::Ok();
}

void Tensor::Reshape(const std::vector<int>& shape) {
  const int64_t count = CountOf(shape);
  if (count < 0 || count > MachineMemoryBytes() / static_cast<int64_t>(sizeof(float))) {
    throw TensorShapeError(CheckTensorShape(shape).message());
  }
  if (shape != shape_) {
    // A layout copy is for one shape: land it in the plain values and drop it (allocating
    // nothing that is not allocated yet).
    for (TensorValues* values : {data_.get(), diff_.get()}) {
      if (!values->plain_fresh) Plain(*values, count_, false);
      values->other_fresh = false;
    }
  }
  shape_ = shape;
  count_ = count;
}

std::vector<float>& Tensor::PlainOfSize(TensorValues& values, size_t floats) {
  std::vector<float>& plain = *values.plain;
  if (plain.size() >= floats) return plain;
  if (values.plain.use_count() == 1) {
    plain.resize(floats);
    return plain;
  }
  // Held (HoldMutableData): the holder keeps this buffer; the tensor grows into a copy.
  auto grown = std::make_shared<std::vector<float>>(floats);
  std::copy(plain.begin(), plain.end(), grown->begin());
  values.plain = std::move(grown);
  return *values.plain;
}

float* Tensor::Plain(TensorValues& values, int64_t count, bool write) {
  std::vector<float>* plain = &PlainOfSize(values, static_cast<size_t>(count));
  if (!values.plain_fresh) {
    // A diff buffer the net shares between tensors (ShareDiffBuffer) may hold another tensor's
    // larger values: room for all of them.
    plain = &PlainOfSize(values, values.layout->bytes() / sizeof(float));
    values.layout->ToPlain(values.other.data(), plain->data());
    values.plain_fresh = true;
  }
  if (write) values.other_fresh = false;
  return plain->data();
}

std::shared_ptr<float> Tensor::Hold(TensorValues& values, int64_t count) {
  if (count == 0) return nullptr;
  float* plain = Plain(values, count, /*write=*/true);
  return std::shared_ptr<float>(values.plain, plain);
}

// Sizes the layout copy for `layout` (its contents are not kept when the layout changes).
static float* OtherBuffer(TensorValues& values, const LayoutPtr& layout) {
  if (!SameLayout(values.layout, layout)) values.layout = layout;
  const size_t floats = (layout->bytes() + sizeof(float) - 1) / sizeof(float);
  if (values.other.size() < floats) values.other.resize(floats);
  return values.other.data();
}

const float* Tensor::ReadIn(TensorValues& values, int64_t count, const LayoutPtr& layout) {
  if (!layout) return Plain(values, count, false);
  if (values.other_fresh && SameLayout(values.layout, layout)) return values.other.data();
  const float* plain = Plain(values, count, false);
  float* other = OtherBuffer(values, layout);
  layout->FromPlain(plain, other);
  values.other_fresh = true;
  return other;
}

float* Tensor::WriteIn(TensorValues& values, int64_t count, const LayoutPtr& layout) {
  if (!layout) {
    float* plain = PlainOfSize(values, static_cast<size_t>(count)).data();
    values.plain_fresh = true;
    values.other_fresh = false;
    return plain;
  }
  float* other = OtherBuffer(values, layout);
  values.other_fresh = true;
  values.plain_fresh = false;
  return other;
}

void Tensor::SwapData(const LayoutPtr& layout, std::vector<float>* values) {
  TensorValues& v = *data_;
  if (!layout) {
    DT_CHECK(static_cast<int64_t>(values->size()) >= count_);
    if (v.plain.use_count() == 1) {
      v.plain->swap(*values);
    } else {
      // Held (HoldMutableData): the holder keeps the buffer; the caller gets a copy of its values.
      std::vector<float> previous = *v.plain;
      v.plain = std::make_shared<std::vector<float>>(std::move(*values));
      *values = std::move(previous);
    }
    v.plain_fresh = true;
    v.other_fresh = false;
    return;
  }
  DT_CHECK(values->size() * sizeof(float) >= layout->bytes());
  OtherBuffer(v, layout);
  v.other.swap(*values);
  v.other_fresh = true;
  v.plain_fresh = false;
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

void Tensor::SetData(float value) { std::fill_n(data_to(nullptr), count_, value); }
void Tensor::SetDiff(float value) { std::fill_n(diff_to(nullptr), count_, value); }

void Tensor::CopyFrom(const Tensor& source, bool copy_diff) {
  Reshape(source.shape());
  std::copy(source.data(), source.data() + count_, mutable_data());
  if (copy_diff) std::copy(source.diff(), source.diff() + count_, mutable_diff());
}

LayoutPtr ElementwiseLayout(const std::vector<Tensor*>& tensors, bool diff) {
  for (const Tensor* t : tensors) {
    LayoutPtr layout = diff ? t->diff_layout() : t->data_layout();
    if (layout && layout->bytes() == static_cast<size_t>(t->count()) * sizeof(float)) {
      return layout;
    }
  }
  return nullptr;
}

StatusOr<std::vector<int>> ShapeFromProto(const BlobShape& shape) {
  std::vector<int> dims;
  for (int i = 0; i < shape.dim_size(); ++i) {
    const int64_t d = shape.dim(i);
    if (d < 0 || d > INT32_MAX) {
      return InvalidArgument("dim " + std::to_string(d) + " (dimension " + std::to_string(i) +
                             ") is outside [0, 2147483647]");
    }
    dims.push_back(static_cast<int>(d));
  }
  DT_RETURN_IF_ERROR(CheckTensorShape(dims));
  return dims;
}

// The shape a BlobProto gives, its `shape` or the legacy 4-d fields; unchecked dims may be
// negative (ShapeEquals compares them as they are).
static std::vector<int> ProtoShape(const BlobProto& proto) {
  if (proto.has_shape()) {
    std::vector<int> dims;
    for (int64_t d : proto.shape().dim()) {
      dims.push_back(d < INT32_MIN || d > INT32_MAX ? -1 : static_cast<int>(d));
    }
    return dims;
  }
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
    if (proto.has_shape()) {
      DT_ASSIGN_OR_RETURN(shape, ShapeFromProto(proto.shape()));
    }
    DT_RETURN_IF_ERROR(CheckTensorShape(shape));
    Reshape(shape);
  } else if (!ShapeEquals(proto)) {
    return InvalidArgument("shape mismatch: expected " + ShapeString() + ", file has " +
                           ShapeToString(shape));
  }
  const int64_t n = count_;
  if (proto.double_data_size() > 0) {
    if (proto.double_data_size() != n) return DataLoss("blob has wrong number of values");
    float* data = mutable_data();
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(proto.double_data(i));
  } else if (proto.data_size() > 0) {
    if (proto.data_size() != n) {
      return DataLoss("blob has " + std::to_string(proto.data_size()) + " values, shape needs " +
                      std::to_string(n));
    }
    std::copy(proto.data().begin(), proto.data().end(), mutable_data());
  } else if (n > 0) {
    return DataLoss("blob of shape " + ShapeString() + " has no data");
  }
  if (proto.diff_size() == n && n > 0)
    std::copy(proto.diff().begin(), proto.diff().end(), mutable_diff());
  return Status::Ok();
}

void Tensor::ToProto(BlobProto* proto, bool write_diff) const {
  proto->Clear();
  for (int d : shape_) proto->mutable_shape()->add_dim(d);
  proto->mutable_data()->Reserve(static_cast<int>(count_));
  const float* values = data();
  for (int64_t i = 0; i < count_; ++i) proto->add_data(values[i]);
  if (write_diff) {
    for (int64_t i = 0; i < count_; ++i) proto->add_diff(diff()[i]);
  }
}

}  // namespace dtrain
