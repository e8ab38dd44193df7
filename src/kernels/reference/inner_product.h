// Reference inner product (fully connected), in oneDNN's vocabulary, float32 row-major:
//
//   src      (m x k)        m rows (the batch), k inputs each
//   weights  (n x k), or (k x n) when `transposed` (Caffe's InnerProductParameter.transpose)
//   bias     (n)
//   dst      (m x n) = src * weights^T (+ bias)
//
// Forward and BackwardData overwrite their output; BackwardWeights and BackwardBias accumulate
// (+=), as Caffe's parameter gradients do. Caller-owned buffers; stateless.
#pragma once

#include <memory>

#include "kernels/inner_product.h"

namespace dtrain::reference {

// bias may be null (no bias term).
void InnerProductForward(const kernels::InnerProductShape& shape, const float* src,
                         const float* weights, const float* bias, float* dst);
void InnerProductBackwardData(const kernels::InnerProductShape& shape, const float* diff_dst,
                              const float* weights, float* diff_src);
void InnerProductBackwardWeights(const kernels::InnerProductShape& shape, const float* src,
                                 const float* diff_dst, float* diff_weights);
void InnerProductBackwardBias(const kernels::InnerProductShape& shape, const float* diff_dst,
                              float* diff_bias);

// The op's reference kernel: takes every problem.
class InnerProduct : public kernels::LinearKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::LinearKernel>> Create(
      const kernels::InnerProductProblem& problem, const kernels::KernelRequest& request);

  void Forward(const float* src, const float* weights, const float* bias, float* dst) override;
  void Backward(const float* src, const float* diff_dst, const float* weights, float* diff_src,
                float* diff_weights, float* diff_bias) override;

 private:
  explicit InnerProduct(const kernels::InnerProductShape& shape) : shape_(shape) {}

  kernels::InnerProductShape shape_;
};

}  // namespace dtrain::reference
