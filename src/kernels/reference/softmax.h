// Reference softmax (kernels/softmax.h): plain loops, the op's last implementation. The maximum
// along the axis is subtracted first so exp never overflows; backward reads dst. Stateless apart
// from the problem; not thread-safe.
#pragma once

#include <memory>

#include "kernels/softmax.h"

namespace dtrain::reference {

class Softmax : public kernels::UnaryKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::UnaryKernel>> Create(
      const kernels::SoftmaxProblem& problem, const kernels::KernelRequest& request);

  void Forward(const float* src, float* dst) override;
  void Backward(const float* src, const float* dst, const float* diff_dst,
                float* diff_src) override;

 private:
  explicit Softmax(const kernels::SoftmaxProblem& problem) : problem_(problem) {}

  kernels::SoftmaxProblem problem_;
};

}  // namespace dtrain::reference
