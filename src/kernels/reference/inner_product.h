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

namespace dtrain::reference {

struct InnerProductShape {
  int m = 1, n = 1, k = 1;
  bool transposed = false;

  bool operator==(const InnerProductShape& o) const {
    return m == o.m && n == o.n && k == o.k && transposed == o.transposed;
  }
};

// bias may be null (no bias term).
void InnerProductForward(const InnerProductShape& shape, const float* src, const float* weights,
                         const float* bias, float* dst);
void InnerProductBackwardData(const InnerProductShape& shape, const float* diff_dst,
                              const float* weights, float* diff_src);
void InnerProductBackwardWeights(const InnerProductShape& shape, const float* src,
                                 const float* diff_dst, float* diff_weights);
void InnerProductBackwardBias(const InnerProductShape& shape, const float* diff_dst,
                              float* diff_bias);

}  // namespace dtrain::reference
