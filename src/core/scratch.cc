#include "core/scratch.h"

#include "core/check.h"

namespace dtrain {

void Scratch::Reserve(size_t bytes) {
  bytes = Rounded(bytes);
  if (bytes <= capacity_) return;
  void* memory = std::aligned_alloc(kAlignment, bytes);
  DT_CHECK(memory != nullptr);
  buffer_.reset(memory);
  capacity_ = bytes;
}

void* Scratch::Take(size_t bytes) {
  bytes = Rounded(bytes);
  DT_CHECK(used_ + bytes <= capacity_);
  void* region = static_cast<char*>(buffer_.get()) + used_;
  used_ += bytes;
  return region;
}

}  // namespace dtrain
