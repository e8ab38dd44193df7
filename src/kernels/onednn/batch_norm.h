// oneDNN batch normalisation without scale and shift, an implementation of kernels/batch_norm.h
// on a dense (num, channels, spatial) float32 buffer. With batch statistics (training) the
// forward pass writes the batch's mean and biased variance; with global statistics it reads
// them. Backward needs the forward's src: run in place, the forward pass keeps a copy of it.
// Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/batch_norm.h"
#include "kernels/onednn/common.h"

namespace dtrain::onednn {

class BatchNorm : public kernels::BatchNormKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::BatchNormKernel>> Create(
      const kernels::BatchNormProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override { return implementation_; }

  void Forward(const float* src, float* dst, float* mean, float* variance) override;
  void Backward(const float* src, const float* dst, const float* mean, const float* variance,
                const float* diff_dst, float* diff_src) override;

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  BatchNorm() = default;
  Status Init(const kernels::BatchNormProblem& problem, bool training);

  CpuContext context_;
  std::string implementation_;
  dnnl::batch_normalization_forward forward_;
  dnnl::batch_normalization_backward backward_;
  dnnl::memory src_, dst_, mean_, variance_, diff_dst_, diff_src_;
  Args fwd_args_, bwd_args_;
  std::vector<float> src_copy_;  // training: the last in-place forward's src
  bool in_place_ = false;        // the last forward ran in place
};

}  // namespace dtrain::onednn
