// JoinKernel: the kernel interface of the ops that join several inputs into one output
// (Eltwise, Concat).
//
// srcs holds one pointer per input (the caller's float32 buffers, each in its input_layout).
// Backward writes input i's gradient (overwritten) after the forward pass of the same data, whose
// srcs and dst it gets again. Not thread-safe.
#pragma once

#include <vector>

#include "kernels/kernel_list.h"

namespace dtrain::kernels {

class JoinKernel : public Kernel {
 public:
  // The layout of input i (and of its diff): layouts().src unless the inputs differ.
  virtual LayoutPtr input_layout(int i) const { return layouts().src; }
  virtual void Forward(const std::vector<const float*>& srcs, float* dst) = 0;
  virtual void Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                        const float* diff_dst, float* diff_src) = 0;
};

}  // namespace dtrain::kernels
