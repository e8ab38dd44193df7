// Eltwise, the op: two or more same-sized float32 inputs combined element by element; its
// problem and its implementation list.
//
//   kSum   dst = sum_i coeffs_i * src_i
//   kProd  dst = prod_i src_i; the gradient is the product of the other inputs when
//          stable_prod_grad, else dst / src_i (faster, unsafe near 0)
//   kMax   dst = max_i src_i; the winner is the first input with the largest value, except that
//          a tie between inputs 0 and 1 goes to 1 (as in Caffe), and the gradient flows to it
//
// The kernel is a JoinKernel (kernels/join_kernel.h). Implementations, in order: oneDNN
// (kernels/onednn/eltwise_sum.h, kSum only), the reference loops (kernels/reference/eltwise.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/join_kernel.h"
#include "kernels/kernel_list.h"

namespace dtrain::kernels {

enum class EltwiseOp { kProd, kSum, kMax };

struct EltwiseProblem {
  int64_t count = 0;  // floats per input
  EltwiseOp op = EltwiseOp::kSum;
  std::vector<float> coeffs;  // kSum: one per input
  bool stable_prod_grad = true;
  bool operator==(const EltwiseProblem& o) const {
    return count == o.count && op == o.op && coeffs == o.coeffs &&
           stable_prod_grad == o.stable_prod_grad;
  }
};

StatusOr<std::unique_ptr<JoinKernel>> ChooseKernel(const EltwiseProblem& problem,
                                                   const KernelRequest& request,
                                                   std::string* report);

}  // namespace dtrain::kernels
