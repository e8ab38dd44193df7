#include "kernels/reference/inner_product.h"

#include "kernels/reference/gemm.h"

namespace dtrain::reference {

void InnerProductForward(const InnerProductShape& s, const float* src, const float* weights,
                         const float* bias, float* dst) {
  Gemm(false, !s.transposed, s.m, s.n, s.k, 1.f, src, weights, 0.f, dst);
  if (bias == nullptr) return;
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) dst[static_cast<long>(i) * s.n + j] += bias[j];
  }
}

void InnerProductBackwardData(const InnerProductShape& s, const float* diff_dst,
                              const float* weights, float* diff_src) {
  // diff_src (m x k) = diff_dst (m x n) * weights (n x k), or * weights^T when stored k x n.
  Gemm(false, s.transposed, s.m, s.k, s.n, 1.f, diff_dst, weights, 0.f, diff_src);
}

void InnerProductBackwardWeights(const InnerProductShape& s, const float* src,
                                 const float* diff_dst, float* diff_weights) {
  if (s.transposed) {
    // (k x n) += src^T (k x m) * diff_dst (m x n)
    Gemm(true, false, s.k, s.n, s.m, 1.f, src, diff_dst, 1.f, diff_weights);
  } else {
    // (n x k) += diff_dst^T (n x m) * src (m x k)
    Gemm(true, false, s.n, s.k, s.m, 1.f, diff_dst, src, 1.f, diff_weights);
  }
}

void InnerProductBackwardBias(const InnerProductShape& s, const float* diff_dst, float* diff_bias) {
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) diff_bias[j] += diff_dst[static_cast<long>(i) * s.n + j];
  }
}

}  // namespace dtrain::reference
