// JoinKernel: the kernel interface of the ops that join several inputs into one output
// (Eltwise, Concat).
//
// srcs holds one pointer per input (the caller's dense float32 buffers). Backward writes input
// i's gradient (overwritten) after the forward pass of the same data, whose srcs and dst it gets
// again. Not thread-safe.
#pragma once

#include <vector>

#include "kernels/kernel_list.h"

namespace dtrain::kernels {

class JoinKernel : public Kernel {
 public:
  virtual void Forward(const std::vector<const float*>& srcs, float* dst) = 0;
  virtual void Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                        const float* diff_dst, float* diff_src) = 0;
};

}  // namespace dtrain::kernels
