#include "kernels/reference/inner_product.h"

#include "kernels/reference/gemm.h"

namespace dtrain::reference {

void InnerProductForward(const kernels::InnerProductShape& s, const float* src,
                         const float* weights, const float* bias, float* dst) {
  Gemm(false, !s.transposed, s.m, s.n, s.k, 1.f, src, weights, 0.f, dst);
  if (bias == nullptr) return;
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) dst[static_cast<long>(i) * s.n + j] += bias[j];
  }
}

void InnerProductBackwardData(const kernels::InnerProductShape& s, const float* diff_dst,
                              const float* weights, float* diff_src) {
  // diff_src (m x k) = diff_dst (m x n) * weights (n x k), or * weights^T when stored k x n.
  Gemm(false, s.transposed, s.m, s.k, s.n, 1.f, diff_dst, weights, 0.f, diff_src);
}

void InnerProductBackwardWeights(const kernels::InnerProductShape& s, const float* src,
                                 const float* diff_dst, float* diff_weights) {
  if (s.transposed) {
    // (k x n) += src^T (k x m) * diff_dst (m x n)
    Gemm(true, false, s.k, s.n, s.m, 1.f, src, diff_dst, 1.f, diff_weights);
  } else {
    // (n x k) += diff_dst^T (n x m) * src (m x k)
    Gemm(true, false, s.n, s.k, s.m, 1.f, diff_dst, src, 1.f, diff_weights);
  }
}

void InnerProductBackwardBias(const kernels::InnerProductShape& s, const float* diff_dst,
                              float* diff_bias) {
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) diff_bias[j] += diff_dst[static_cast<long>(i) * s.n + j];
  }
}

StatusOr<std::unique_ptr<kernels::LinearKernel>> InnerProduct::Create(
    const kernels::InnerProductProblem& problem, const kernels::KernelRequest&) {
  return std::unique_ptr<kernels::LinearKernel>(new InnerProduct(problem.shape));
}

void InnerProduct::Forward(const float* src, const float* weights, const float* bias, float* dst) {
  InnerProductForward(shape_, src, weights, bias, dst);
}

void InnerProduct::Backward(const float* src, const float* diff_dst, const float* weights,
                            float* diff_src, float* diff_weights, float* diff_bias) {
  if (diff_weights) InnerProductBackwardWeights(shape_, src, diff_dst, diff_weights);
  if (diff_bias) InnerProductBackwardBias(shape_, diff_dst, diff_bias);
  if (diff_src) InnerProductBackwardData(shape_, diff_dst, weights, diff_src);
}

}  // namespace dtrain::reference
