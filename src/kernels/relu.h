// ReLU, the op: dst = max(src, 0) + negative_slope * min(src, 0) over `count` floats, element by
// element; backward: diff_src = diff_dst where src > 0, negative_slope * diff_dst elsewhere. May
// run in place. The kernel is a UnaryKernel (kernels/unary_kernel.h). Implementations, in order:
// oneDNN (kernels/onednn/relu.h; slope >= 0), the reference loops (kernels/reference/relu.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/unary_kernel.h"

namespace dtrain::kernels {

struct ReluProblem {
  int64_t count = 0;
  float negative_slope = 0.f;
  bool operator==(const ReluProblem& o) const {
    return count == o.count && negative_slope == o.negative_slope;
  }
};

StatusOr<std::unique_ptr<UnaryKernel>> ChooseKernel(const ReluProblem& problem,
                                                    const KernelRequest& request,
                                                    std::string* report);

}  // namespace dtrain::kernels
