// oneDNN batch normalisation without scale and shift (Caffe's BatchNorm; a Scale layer adds
// those): dst = (src - mean) / sqrt(variance + eps) per channel of a dense (num, channels,
// spatial) float32 buffer. With batch statistics (training) the forward pass writes the batch's
// mean and biased variance; with global statistics it reads them. Backward needs the forward's
// src, mean and variance. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/onednn/common.h"

namespace dtrain::onednn {

struct BatchNormProblem {
  int64_t num = 1, channels = 1, spatial = 1;
  float eps = 1e-5f;
  bool global_stats = false;
  bool operator==(const BatchNormProblem& o) const {
    return num == o.num && channels == o.channels && spatial == o.spatial && eps == o.eps &&
           global_stats == o.global_stats;
  }
};

class BatchNorm {
 public:
  static StatusOr<std::unique_ptr<BatchNorm>> Create(const BatchNormProblem& problem,
                                                     bool training);
  std::string implementation() const { return implementation_; }

  // mean and variance (channels floats each): outputs with batch statistics, inputs with global.
  void Forward(const float* src, float* dst, float* mean, float* variance);
  void Backward(const float* src, const float* mean, const float* variance, const float* diff_dst,
                float* diff_src);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  BatchNorm() = default;
  Status Init(const BatchNormProblem& problem, bool training);

  CpuContext context_;
  std::string implementation_;
  dnnl::batch_normalization_forward forward_;
  dnnl::batch_normalization_backward backward_;
  dnnl::memory src_, dst_, mean_, variance_, diff_dst_, diff_src_;
  Args fwd_args_, bwd_args_;
};

}  // namespace dtrain::onednn
