// Gemm / Gemv: thin wrappers over OpenBLAS's cblas_sgemm / cblas_sgemv, row-major, with Caffe's
// argument order (caffe_cpu_gemm): C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C.
// Leading dimensions are those of dense row-major matrices. Stateless; thread-safety is
// OpenBLAS's.
#pragma once

#include <cblas.h>

namespace dtrain::reference {

inline void Gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                 const float* b, float beta, float* c) {
  const int lda = trans_a ? m : k;
  const int ldb = trans_b ? k : n;
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, n);
}

// y = alpha * op(A) * x + beta * y, where A is m x n row-major.
inline void Gemv(bool trans_a, int m, int n, float alpha, const float* a, const float* x,
                 float beta, float* y) {
  cblas_sgemv(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, m, n, alpha, a, n, x, 1, beta, y,
              1);
}

}  // namespace dtrain::reference
