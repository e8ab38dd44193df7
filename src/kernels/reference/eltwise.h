// Reference Eltwise (kernels/eltwise.h): SUM, PROD and MAX as plain loops, the op's last
// implementation. MAX keeps the winning input per element for backward. Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "kernels/eltwise.h"

namespace dtrain::reference {

class Eltwise : public kernels::JoinKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::JoinKernel>> Create(
      const kernels::EltwiseProblem& problem, const kernels::KernelRequest& request);

  void Forward(const std::vector<const float*>& srcs, float* dst) override;
  void Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                const float* diff_dst, float* diff_src) override;

 private:
  explicit Eltwise(const kernels::EltwiseProblem& problem);

  kernels::EltwiseProblem problem_;
  std::vector<int> max_index_;  // MAX: the winning input per element
};

}  // namespace dtrain::reference
