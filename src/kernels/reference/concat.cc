#include "kernels/reference/concat.h"

#include <algorithm>

namespace dtrain::reference {

StatusOr<std::unique_ptr<kernels::JoinKernel>> Concat::Create(const kernels::ConcatProblem& problem,
                                                              const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::JoinKernel>(new Concat(problem));
}

Concat::Concat(const kernels::ConcatProblem& problem) {
  const std::vector<int64_t>& first = problem.srcs[0];
  for (int d = 0; d < problem.axis; ++d) outer_ *= first[d];
  for (const std::vector<int64_t>& dims : problem.srcs) {
    int64_t block = 1;
    for (size_t d = problem.axis; d < dims.size(); ++d) block *= dims[d];
    starts_.push_back(dst_block_);
    blocks_.push_back(block);
    dst_block_ += block;
  }
}

void Concat::Forward(const std::vector<const float*>& srcs, float* y) {
  for (size_t i = 0; i < srcs.size(); ++i) {
    const int64_t block = blocks_[i];
    for (int64_t n = 0; n < outer_; ++n) {
      std::copy(srcs[i] + n * block, srcs[i] + (n + 1) * block, y + n * dst_block_ + starts_[i]);
    }
  }
}

void Concat::Backward(int i, const std::vector<const float*>&, const float*, const float* dy,
                      float* dx) {
  const int64_t block = blocks_[i];
  for (int64_t n = 0; n < outer_; ++n) {
    const float* src = dy + n * dst_block_ + starts_[i];
    std::copy(src, src + block, dx + n * block);
  }
}

}  // namespace dtrain::reference
