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
//
// Other layouts (core/tensor_layout.h): data and diff may also be held in one kernel layout
// besides the plain one. data_in(layout) reads in that layout, converting only when the current
// values are not already there; data_to(layout) gives a buffer whose every value the caller
// overwrites in that layout, leaving the plain copy stale. The plain accessors (data(),
// mutable_data(), ...) convert back on access, so code that knows nothing of layouts always sees
// the current values. A pointer from an accessor is good until the next call that may read or
// write the tensor in another layout (a layer's Forward or Backward): take it again after, as
// with Caffe's SyncedMemory. A caller computing in place (top aliasing bottom) takes its read
// pointers before its write pointers, in one layout for both.
//
// Held buffers: a caller that must keep memory valid beyond that (the Python module's NumPy
// arrays) holds the plain buffer instead (HoldMutableData/HoldMutableDiff). A held buffer is never
// freed, moved or handed to a layer while held: where the tensor would resize it or swap it away
// (a reshape past its size, SwapData, ShareData dropping it), the tensor moves to a new buffer
// (copying the values where it grows) and the holder keeps the old one, detached: its writes no
// longer reach the tensor, and it no longer sees the tensor's. IsHeldData/IsHeldDiff say which.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor_layout.h"

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

// One data or diff buffer, shared by the tensors that alias it: the plain values and a copy in
// `layout`; the flags say which of the two hold the current values (at least one does).
struct TensorValues {
  // Never null; shared only with holders (Tensor::HoldMutableData), never between tensors.
  std::shared_ptr<std::vector<float>> plain = std::make_shared<std::vector<float>>();
  std::vector<float> other;
  LayoutPtr layout;
  bool plain_fresh = true;
  bool other_fresh = false;
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

  const float* data() const { return Plain(*data_, count_, false); }
  const float* diff() const { return Plain(*diff_, count_, false); }
  float* mutable_data() { return Plain(*data_, count_, true); }
  float* mutable_diff() { return Plain(*diff_, count_, true); }
  // mutable_data()/mutable_diff() (count() values), sharing ownership of the buffer with the
  // caller: it stays allocated while the caller holds the pointer (see "Held buffers" above).
  // Null when count() is 0.
  std::shared_ptr<float> HoldMutableData() { return Hold(*data_, count_); }
  std::shared_ptr<float> HoldMutableDiff() { return Hold(*diff_, count_); }
  // Whether `held` (from HoldMutableData/HoldMutableDiff) is still this tensor's buffer, that is
  // whether writes through it reach the tensor.
  bool IsHeldData(const std::shared_ptr<float>& held) const { return IsHeld(*data_, held); }
  bool IsHeldDiff(const std::shared_ptr<float>& held) const { return IsHeld(*diff_, held); }

  // The values in `layout` (null: plain), converted only when not already current there.
  const float* data_in(const LayoutPtr& layout) const { return ReadIn(*data_, count_, layout); }
  const float* diff_in(const LayoutPtr& layout) const { return ReadIn(*diff_, count_, layout); }
  // A buffer in `layout` (null: plain) that the caller fills completely: the previous values are
  // dropped without conversion, and the other copy is stale.
  float* data_to(const LayoutPtr& layout) { return WriteIn(*data_, count_, layout); }
  float* diff_to(const LayoutPtr& layout) { return WriteIn(*diff_, count_, layout); }
  // Exchanges the data buffer in `layout` (null: plain) with *values, which the caller has filled
  // in that layout (at least its bytes): it becomes the current data, the only current copy, and
  // *values receives the buffer the tensor held there (the values data_in(layout) last returned,
  // if nothing wrote the tensor since). What lets a layer computing in place keep its input
  // without copying it (layers/batch_norm_layer.cc).
  void SwapData(const LayoutPtr& layout, std::vector<float>* values);
  // The diff's values are of no further use (the net's diff planner: the buffer held another
  // blob's diff): they become undefined, and the next access converts nothing.
  void DiscardDiff() {
    diff_->plain_fresh = true;
    diff_->other_fresh = false;
  }
  // The non-plain layout the current values are in, or null when only the plain copy is current:
  // what an elementwise layer follows so as to convert nothing.
  LayoutPtr data_layout() const { return data_->other_fresh ? data_->layout : nullptr; }
  LayoutPtr diff_layout() const { return diff_->other_fresh ? diff_->layout : nullptr; }

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
  static float* Plain(TensorValues& values, int64_t count, bool write);
  // values.plain with at least `floats` values, moved to a new buffer if a holder shares it.
  static std::vector<float>& PlainOfSize(TensorValues& values, size_t floats);
  static std::shared_ptr<float> Hold(TensorValues& values, int64_t count);
  static bool IsHeld(const TensorValues& values, const std::shared_ptr<float>& held) {
    return held != nullptr && held.get() == values.plain->data();
  }
  static const float* ReadIn(TensorValues& values, int64_t count, const LayoutPtr& layout);
  static float* WriteIn(TensorValues& values, int64_t count, const LayoutPtr& layout);

  std::vector<int> shape_;
  int64_t count_ = 0;
  std::shared_ptr<TensorValues> data_;
  std::shared_ptr<TensorValues> diff_;
};

// The layout an elementwise layer computes in so as to convert nothing: that of the first of
// `tensors` whose data (diff with `diff`) is current in a non-plain layout of exactly its count
// of values (an elementwise op then sees the same values, permuted; a padded layout's extra
// values are not the op's), else null (plain).
LayoutPtr ElementwiseLayout(const std::vector<Tensor*>& tensors, bool diff);

// A BlobShape's dims as a tensor shape: each in [0, 2^31 - 1], and CheckTensorShape's limits.
StatusOr<std::vector<int>> ShapeFromProto(const BlobShape& shape);
std::string ShapeToString(const std::vector<int>& shape);

}  // namespace dtrain
