// Concat, the op: inputs of equal dims except along `axis`, joined along it in input order
// (dense row-major float32, or the layouts the kernel names); backward copies each input's slice of
// diff_dst back, reading neither srcs nor dst (a caller may pass them empty). Its problem
// and its implementation list. The kernel is a JoinKernel (kernels/join_kernel.h).
// Implementations, in order: oneDNN (kernels/onednn/concat.h), the reference copies
// (kernels/reference/concat.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/join_kernel.h"
#include "kernels/kernel_list.h"

namespace dtrain::kernels {

struct ConcatProblem {
  std::vector<std::vector<int64_t>> srcs;  // every input's dims
  int axis = 1;
  bool operator==(const ConcatProblem& o) const { return srcs == o.srcs && axis == o.axis; }
};

StatusOr<std::unique_ptr<JoinKernel>> ChooseKernel(const ConcatProblem& problem,
                                                   const KernelRequest& request,
                                                   std::string* report);

}  // namespace dtrain::kernels
