// Scratch: a byte arena that the kernels of one net share for data they need only during one call
// (e.g. inputs and outputs relaid into a oneDNN layout). Layers run one at a time, so one buffer
// sized for the largest single call serves them all: peak memory grows by one call's needs rather
// than by the sum over layers.
//
// A kernel Reserves its per-call need when it is created; each call then Resets and Takes its
// regions (64-byte aligned). Reserve may move the buffer, so it must not run during a call; Take
// never moves it. Owned by the Net (which outlives its layers' kernels); not thread-safe.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace dtrain {

class Scratch {
 public:
  static constexpr size_t kAlignment = 64;
  // Bytes a region of `bytes` occupies.
  static size_t Rounded(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

  // Makes sure that Takes of `bytes` in total (each Rounded) fit in one call.
  void Reserve(size_t bytes);
  // Starts a call: regions are handed out from the start again.
  void Reset() { used_ = 0; }
  // A region of `bytes`; aborts if the call takes more than it reserved (a kernel bug).
  void* Take(size_t bytes);
  size_t capacity() const { return capacity_; }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> buffer_;
  size_t capacity_ = 0, used_ = 0;
};

}  // namespace dtrain
