// Tensor: Caffe's Blob. An N-d array of float32 values (data) with a same-shaped gradient (diff).
//
// Layout is row-major over shape(), so a 4-d tensor is NCHW. Storage for data and diff is held by
// shared_ptr so that a layer can make its top alias its bottom (Flatten, Reshape, in-place use);
// an aliased tensor sees the other's writes. Storage keeps capacity: it only grows when the
// count exceeds every count seen before, so a steady-state iteration allocates nothing. Data and
// diff are allocated (zero-filled) on first access, not by Reshape: a net's shapes are all known,
// and its memory checked (net/net.h), before they take any; and a net can give the diffs of
// tensors with disjoint backward lifetimes one buffer (ShareDiffBuffer) before any is touched.
//
// Sizes: Reshape refuses a shape with a negative dimension, a count that overflows, or more
// values than this machine's memory holds (core/machine_memory.h) by throwing TensorShapeError;
// Layer::Setup/Forward and the data prefetch thread turn it into a Status naming the layer, so an
// absurd size from a file is an error, never an abort or std::bad_alloc. FromProto returns it as
// a Status. Not thread-safe: one thread mutates a tensor at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

class BlobProto;
class BlobShape;

// Why no tensor of `shape` can exist on this machine, or OK (see the file comment).
Status CheckTensorShape(const std::vector<int>& shape);

// Thrown by Tensor::Reshape with CheckTensorShape's message.
class TensorShapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Tensor {
 public:
  Tensor();
  explicit Tensor(const std::vector<int>& shape);

  void Reshape(const std::vector<int>& shape);
  void ReshapeLike(const Tensor& other) { Reshape(other.shape()); }

  const std::vector<int>& shape() const { return shape_; }
  // Axis may be negative (counts from the end), as in Caffe.
  int shape(int axis) const { return shape_[CanonicalAxisIndex(axis)]; }
  int num_axes() const { return static_cast<int>(shape_.size()); }
  int64_t count() const { return count_; }
  // Product of the dimensions in [start, end).
  int64_t count(int start, int end) const;
  int64_t count(int start) const { return count(start, num_axes()); }
  int CanonicalAxisIndex(int axis) const;
  std::string ShapeString() const;  // "64 1 28 28 (50176)"

  const float* data() const {
    EnsureData();
    return data_->data();
  }
  const float* diff() const {
    EnsureDiff();
    return diff_->data();
  }
  float* mutable_data() {
    EnsureData();
    return data_->data();
  }
  float* mutable_diff() {
    EnsureDiff();
    return diff_->data();
  }

  // Makes this tensor use other's storage (shapes must have the same count).
  void ShareData(const Tensor& other);
  void ShareDiff(const Tensor& other);
  // Makes this tensor's diff use other's diff buffer, whatever their counts (the buffer grows to
  // the largest on access). For the net's diff planner: the two diffs must never be live at once.
  void ShareDiffBuffer(const Tensor& other) { diff_ = other.diff_; }
  // Whether the two diffs are one buffer.
  bool SharesDiffWith(const Tensor& other) const { return diff_ == other.diff_; }
  // Identities of the storage, to count shared buffers once (net memory figures).
  const void* data_storage() const { return data_.get(); }
  const void* diff_storage() const { return diff_.get(); }

  void SetData(float value);
  void SetDiff(float value);
  void CopyFrom(const Tensor& source, bool copy_diff = false);

  // Caffe's BlobProto: `shape` or the legacy num/channels/height/width fields.
  Status FromProto(const BlobProto& proto, bool reshape);
  void ToProto(BlobProto* proto, bool write_diff) const;
  bool ShapeEquals(const BlobProto& proto) const;

 private:
  void EnsureData() const {
    if (static_cast<int64_t>(data_->size()) < count_) data_->resize(count_);
  }
  void EnsureDiff() const {
    if (static_cast<int64_t>(diff_->size()) < count_) diff_->resize(count_);
  }

  std::vector<int> shape_;
  int64_t count_ = 0;
  std::shared_ptr<std::vector<float>> data_;
  std::shared_ptr<std::vector<float>> diff_;
};

// A BlobShape's dims as a tensor shape: each in [0, 2^31 - 1], and CheckTensorShape's limits.
StatusOr<std::vector<int>> ShapeFromProto(const BlobShape& shape);
std::string ShapeToString(const std::vector<int>& shape);

}  // namespace dtrain
