// UnaryKernel: the kernel interface of the ops with one input and one output of the same shape
// (ReLU, Softmax, LRN).
//
// Buffers are the caller's dense float32 ones. Backward gets the src and dst pointers of the
// forward pass just before it (equal when the op ran in place, where src then holds dst) and
// overwrites diff_src, which may be diff_dst itself. A kernel may keep what its backward needs
// from the forward pass. Not thread-safe.
#pragma once

#include "kernels/kernel_list.h"

namespace dtrain::kernels {

class UnaryKernel : public Kernel {
 public:
  virtual void Forward(const float* src, float* dst) = 0;
  virtual void Backward(const float* src, const float* dst, const float* diff_dst,
                        float* diff_src) = 0;
};

}  // namespace dtrain::kernels
