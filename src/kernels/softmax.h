// Softmax, the op: dst = exp(src) / sum(exp(src)) along the `channels` axis of an
// (outer, channels, inner) float32 buffer, independently at every outer and inner position;
// backward: diff_src = (diff_dst - sum_channels(diff_dst * dst)) * dst. May run in place. The
// kernel is a UnaryKernel (kernels/unary_kernel.h). Implementations, in order: oneDNN
// (kernels/onednn/softmax.h), the reference loops (kernels/reference/softmax.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/unary_kernel.h"

namespace dtrain::kernels {

struct SoftmaxProblem {
  int64_t outer = 1, channels = 1, inner = 1;
  bool operator==(const SoftmaxProblem& o) const {
    return outer == o.outer && channels == o.channels && inner == o.inner;
  }
};

StatusOr<std::unique_ptr<UnaryKernel>> ChooseKernel(const SoftmaxProblem& problem,
                                                    const KernelRequest& request,
                                                    std::string* report);

}  // namespace dtrain::kernels
