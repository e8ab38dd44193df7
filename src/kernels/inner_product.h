// InnerProduct, the op (fully connected), its problem and its implementation list, float32
// row-major:
//
//   src      (m x k)        m rows (the batch), k inputs each
//   weights  (n x k), or (k x n) when `transposed` (Caffe's InnerProductParameter.transpose)
//   bias     (n)
//   dst      (m x n) = src * weights^T (+ bias)
//
// The kernel is a LinearKernel (kernels/linear_kernel.h). Implementations, in order: oneDNN
// (kernels/onednn/inner_product.h), the reference sgemm (kernels/reference/inner_product.h).
#pragma once

#include <memory>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/linear_kernel.h"

namespace dtrain::kernels {

struct InnerProductShape {
  int m = 1, n = 1, k = 1;
  bool transposed = false;
  bool operator==(const InnerProductShape& o) const {
    return m == o.m && n == o.n && k == o.k && transposed == o.transposed;
  }
};

struct InnerProductProblem {
  InnerProductShape shape;
  bool bias = true;
  bool operator==(const InnerProductProblem& o) const { return shape == o.shape && bias == o.bias; }
};

StatusOr<std::unique_ptr<LinearKernel>> ChooseKernel(const InnerProductProblem& problem,
                                                     const KernelRequest& request,
                                                     std::string* report);

}  // namespace dtrain::kernels
