// oneDNN weighted sum of equally shaped dense float32 buffers (Caffe's Eltwise SUM):
// dst = sum_i coeffs[i] * src_i; backward diff_src_i = coeffs[i] * diff_dst (the Eltwise PROD and
// MAX operations have no oneDNN kernel and stay on the reference path). Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/onednn/common.h"

namespace dtrain::onednn {

struct EltwiseSumProblem {
  int64_t count = 0;
  std::vector<float> coeffs;  // one per input
  bool operator==(const EltwiseSumProblem& o) const {
    return count == o.count && coeffs == o.coeffs;
  }
};

class EltwiseSum {
 public:
  static StatusOr<std::unique_ptr<EltwiseSum>> Create(const EltwiseSumProblem& problem,
                                                      bool training);
  std::string implementation() const { return implementation_; }

  // srcs: one pointer per input.
  void Forward(const std::vector<const float*>& srcs, float* dst);
  // diff_src of input i from diff_dst.
  void Backward(int i, const float* diff_dst, float* diff_src);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  EltwiseSum() = default;
  Status Init(const EltwiseSumProblem& problem, bool training);

  CpuContext context_;
  std::string implementation_;
  dnnl::sum forward_;
  std::vector<dnnl::memory> srcs_;
  dnnl::memory dst_, diff_dst_, diff_src_;
  Args fwd_args_, bwd_args_;
  std::vector<dnnl::eltwise_forward> scale_;  // per input: diff_src = coeff * diff_dst
};

}  // namespace dtrain::onednn
