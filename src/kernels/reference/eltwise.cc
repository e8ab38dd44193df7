#include "kernels/reference/eltwise.h"

#include <algorithm>

namespace dtrain::reference {

using kernels::EltwiseOp;

StatusOr<std::unique_ptr<kernels::JoinKernel>> Eltwise::Create(
    const kernels::EltwiseProblem& problem, const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::JoinKernel>(new Eltwise(problem));
}

Eltwise::Eltwise(const kernels::EltwiseProblem& problem)
    : problem_(problem),
      max_index_(problem.op == EltwiseOp::kMax ? static_cast<size_t>(problem.count) : 0) {}

void Eltwise::Forward(const std::vector<const float*>& srcs, float* y) {
  const int64_t n = problem_.count;
  switch (problem_.op) {
    case EltwiseOp::kProd: {
      const float* a = srcs[0];
      const float* b = srcs[1];
      for (int64_t j = 0; j < n; ++j) y[j] = a[j] * b[j];
      for (size_t i = 2; i < srcs.size(); ++i) {
        for (int64_t j = 0; j < n; ++j) y[j] *= srcs[i][j];
      }
      return;
    }
    case EltwiseOp::kSum:
      std::fill(y, y + n, 0.f);
      for (size_t i = 0; i < srcs.size(); ++i) {
        const float* x = srcs[i];
        for (int64_t j = 0; j < n; ++j) y[j] += problem_.coeffs[i] * x[j];
      }
      return;
    case EltwiseOp::kMax: {
      const float* a = srcs[0];
      const float* b = srcs[1];
      for (int64_t j = 0; j < n; ++j) {
        const bool first = a[j] > b[j];
        y[j] = first ? a[j] : b[j];
        max_index_[j] = first ? 0 : 1;
      }
      for (size_t i = 2; i < srcs.size(); ++i) {
        const float* x = srcs[i];
        for (int64_t j = 0; j < n; ++j) {
          if (x[j] > y[j]) {
            y[j] = x[j];
            max_index_[j] = static_cast<int>(i);
          }
        }
      }
      return;
    }
  }
}

void Eltwise::Backward(int i, const std::vector<const float*>& srcs, const float* y,
                       const float* dy, float* dx) {
  const int64_t n = problem_.count;
  switch (problem_.op) {
    case EltwiseOp::kProd:
      if (problem_.stable_prod_grad) {
        std::fill(dx, dx + n, 1.f);
        for (size_t k = 0; k < srcs.size(); ++k) {
          if (static_cast<int>(k) == i) continue;
          for (int64_t j = 0; j < n; ++j) dx[j] *= srcs[k][j];
        }
      } else {
        for (int64_t j = 0; j < n; ++j) dx[j] = y[j] / srcs[i][j];
      }
      for (int64_t j = 0; j < n; ++j) dx[j] *= dy[j];
      return;
    case EltwiseOp::kSum:
      for (int64_t j = 0; j < n; ++j) dx[j] = problem_.coeffs[i] * dy[j];
      return;
    case EltwiseOp::kMax:
      for (int64_t j = 0; j < n; ++j) dx[j] = max_index_[j] == i ? dy[j] : 0.f;
      return;
  }
}

}  // namespace dtrain::reference
