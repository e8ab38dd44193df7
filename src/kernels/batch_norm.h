// BatchNorm, the op: each channel of a (num, channels, spatial) float32 buffer normalised to zero
// mean and unit variance, dst = (src - mean_c) / sqrt(var_c + eps), with the batch's statistics
// (taken over num and spatial; variance biased) or given global ones. No scale or shift; its
// problem and its implementation list.
//
// Backward with batch statistics: diff_src = (diff_dst - mean(diff_dst) - mean(diff_dst * dst)
// * dst) / sqrt(var + eps) per channel; with global statistics: diff_dst / sqrt(var + eps).
// Implementations, in order: oneDNN (kernels/onednn/batch_norm.h), the reference loops
// (kernels/reference/batch_norm.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/kernel_list.h"

namespace dtrain::kernels {

struct BatchNormProblem {
  int64_t num = 1, channels = 1, spatial = 1;
  float eps = 1e-5f;
  bool global_stats = false;
  bool operator==(const BatchNormProblem& o) const {
    return num == o.num && channels == o.channels && spatial == o.spatial && eps == o.eps &&
           global_stats == o.global_stats;
  }
};

class BatchNormKernel : public Kernel {
 public:
  // mean and variance (channels floats each): outputs with batch statistics, inputs with global
  // ones. May run in place (src == dst); the kernel then keeps what its backward needs.
  virtual void Forward(const float* src, float* dst, float* mean, float* variance) = 0;
  // After the forward pass of the same batch, with its src and dst pointers and statistics.
  // diff_src (overwritten) may be diff_dst itself.
  virtual void Backward(const float* src, const float* dst, const float* mean,
                        const float* variance, const float* diff_dst, float* diff_src) = 0;
};

StatusOr<std::unique_ptr<BatchNormKernel>> ChooseKernel(const BatchNormProblem& problem,
                                                        const KernelRequest& request,
                                                        std::string* report);

}  // namespace dtrain::kernels
