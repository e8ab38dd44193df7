// Reference ReLU (kernels/relu.h): plain loops over the buffer, the op's last implementation.
// Backward reads src, which in place holds dst: dst > 0 exactly where src > 0 for any
// slope >= 0, as Caffe assumes. Stateless apart from the problem; not thread-safe.
#pragma once

#include <memory>

#include "kernels/relu.h"

namespace dtrain::reference {

class Relu : public kernels::UnaryKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::UnaryKernel>> Create(
      const kernels::ReluProblem& problem, const kernels::KernelRequest& request);

  void Forward(const float* src, float* dst) override;
  void Backward(const float* src, const float* dst, const float* diff_dst,
                float* diff_src) override;

 private:
  explicit Relu(const kernels::ReluProblem& problem) : problem_(problem) {}

  kernels::ReluProblem problem_;
};

}  // namespace dtrain::reference
