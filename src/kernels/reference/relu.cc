#include "kernels/reference/relu.h"

#include <algorithm>

namespace dtrain::reference {

StatusOr<std::unique_ptr<kernels::UnaryKernel>> Relu::Create(const kernels::ReluProblem& problem,
                                                             const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::UnaryKernel>(new Relu(problem));
}

void Relu::Forward(const float* x, float* y) {
  const float slope = problem_.negative_slope;
  for (int64_t i = 0; i < problem_.count; ++i) {
    y[i] = std::max(x[i], 0.f) + slope * std::min(x[i], 0.f);
  }
}

void Relu::Backward(const float* x, const float*, const float* dy, float* dx) {
  const float slope = problem_.negative_slope;
  for (int64_t i = 0; i < problem_.count; ++i) dx[i] = x[i] > 0.f ? dy[i] : slope * dy[i];
}

}  // namespace dtrain::reference
