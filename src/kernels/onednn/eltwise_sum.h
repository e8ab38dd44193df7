// oneDNN weighted sum of equally shaped dense float32 buffers (Caffe's Eltwise SUM):
// dst = sum_i coeffs[i] * src_i; backward diff_src_i = coeffs[i] * diff_dst (the Eltwise PROD and
// MAX operations have no oneDNN kernel and stay on the reference path). Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/eltwise.h"
#include "kernels/onednn/common.h"

namespace dtrain::onednn {

class EltwiseSum : public kernels::JoinKernel {
 public:
  // Declines PROD and MAX.
  static StatusOr<std::unique_ptr<kernels::JoinKernel>> Create(
      const kernels::EltwiseProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override { return implementation_; }

  void Forward(const std::vector<const float*>& srcs, float* dst) override;
  void Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                const float* diff_dst, float* diff_src) override;

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  EltwiseSum() = default;
  Status Init(const kernels::EltwiseProblem& problem, bool training);

  CpuContext context_;
  std::string implementation_;
  dnnl::sum forward_;
  std::vector<dnnl::memory> srcs_;
  dnnl::memory dst_, diff_dst_, diff_src_;
  Args fwd_args_, bwd_args_;
  std::vector<dnnl::eltwise_forward> scale_;  // per input: diff_src = coeff * diff_dst
};

}  // namespace dtrain::onednn
