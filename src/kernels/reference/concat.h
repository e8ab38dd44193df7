// Reference Concat (kernels/concat.h): block copies, the op's last implementation. Stateless
// apart from the problem; not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "kernels/concat.h"

namespace dtrain::reference {

class Concat : public kernels::JoinKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::JoinKernel>> Create(
      const kernels::ConcatProblem& problem, const kernels::KernelRequest& request);

  void Forward(const std::vector<const float*>& srcs, float* dst) override;
  void Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                const float* diff_dst, float* diff_src) override;

 private:
  explicit Concat(const kernels::ConcatProblem& problem);

  int64_t outer_ = 1;            // the product of the dims before the axis
  std::vector<int64_t> blocks_;  // per input: floats of one outer slice
  std::vector<int64_t> starts_;  // per input: where its block starts in the output's slice
  int64_t dst_block_ = 0;        // floats of one outer slice of the output
};

}  // namespace dtrain::reference
