#include "kernels/reference/softmax.h"

#include <algorithm>
#include <cmath>

namespace dtrain::reference {

StatusOr<std::unique_ptr<kernels::UnaryKernel>> Softmax::Create(
    const kernels::SoftmaxProblem& problem, const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::UnaryKernel>(new Softmax(problem));
}

void Softmax::Forward(const float* x, float* y) {
  const int64_t channels = problem_.channels, inner = problem_.inner;
  for (int64_t o = 0; o < problem_.outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * channels * inner + in;
      float max = x[base];
      for (int64_t c = 1; c < channels; ++c) max = std::max(max, x[base + c * inner]);
      float sum = 0.f;
      for (int64_t c = 0; c < channels; ++c) {
        y[base + c * inner] = std::exp(x[base + c * inner] - max);
        sum += y[base + c * inner];
      }
      for (int64_t c = 0; c < channels; ++c) y[base + c * inner] /= sum;
    }
  }
}

void Softmax::Backward(const float*, const float* y, const float* dy, float* dx) {
  const int64_t channels = problem_.channels, inner = problem_.inner;
  for (int64_t o = 0; o < problem_.outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * channels * inner + in;
      float dot = 0.f;
      for (int64_t c = 0; c < channels; ++c) dot += dy[base + c * inner] * y[base + c * inner];
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t k = base + c * inner;
        dx[k] = (dy[k] - dot) * y[k];
      }
    }
  }
}

}  // namespace dtrain::reference
