// Tensor: Caffe's Blob. An N-d array of float32 values (data) with a same-shaped gradient (diff).
//
// Layout is row-major over shape(), so a 4-d tensor is NCHW. Storage for data and diff is held by
// shared_ptr so that a layer can make its top alias its bottom (Flatten, Reshape, in-place use);
// an aliased tensor sees the other's writes. Reshape keeps capacity: it only allocates when the
// new count exceeds every count seen before, so a steady-state iteration allocates nothing. The
// diff is allocated (zero-filled) on first access, so that a net can give the diffs of tensors
// with disjoint backward lifetimes one buffer (ShareDiffBuffer) before any of them is touched.
// Not thread-safe: one thread mutates a tensor at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

class BlobProto;
class BlobShape;

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

  const float* data() const { return data_->data(); }
  const float* diff() const {
    EnsureDiff();
    return diff_->data();
  }
  float* mutable_data() { return data_->data(); }
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

  void SetData(float value);
  void SetDiff(float value);
  void CopyFrom(const Tensor& source, bool copy_diff = false);

  // Caffe's BlobProto: `shape` or the legacy num/channels/height/width fields.
  Status FromProto(const BlobProto& proto, bool reshape);
  void ToProto(BlobProto* proto, bool write_diff) const;
  bool ShapeEquals(const BlobProto& proto) const;

 private:
  void EnsureDiff() const {
    if (static_cast<int64_t>(diff_->size()) < count_) diff_->resize(count_);
  }

  std::vector<int> shape_;
  int64_t count_ = 0;
  std::shared_ptr<std::vector<float>> data_;
  std::shared_ptr<std::vector<float>> diff_;
};

std::vector<int> ShapeFromProto(const BlobShape& shape);
std::string ShapeToString(const std::vector<int>& shape);

}  // namespace dtrain
