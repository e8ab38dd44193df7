// BatchNorm, the op: each channel of a (num, channels, spatial) float32 buffer normalised to zero
// mean and unit variance, dst = (src - mean_c) / sqrt(var_c + eps), with the batch's statistics
// (taken over num and spatial; variance biased) or given global ones; its problem and its
// implementation list. Optionally fused with what Caffe writes as the following layers (the
// BatchNorm layer absorbs them, layers/batch_norm_layer.h): a per-channel scale and shift
// (Scale with bias_term), dst = scale_c * xhat + shift_c, and a ReLU after it.
//
// Backward with batch statistics: diff_xhat = (the diff through ReLU and scale), diff_src =
// (diff_xhat - mean(diff_xhat) - mean(diff_xhat * xhat) * xhat) / sqrt(var + eps) per channel;
// with global statistics: diff_xhat / sqrt(var + eps). With scale and shift it also writes
// diff_scale_c = sum(diff * xhat) and diff_shift_c = sum(diff) (diff: after the ReLU's mask).
// Ghost batch statistics (Intel Caffe's stats_batch_size): with groups > 1 the num items split
// into `groups` runs of num / groups consecutive items, each normalised by its own statistics, in
// both passes, as if each were a batch of its own; mean and variance then hold one row of channels
// floats per group. Only the reference loops compute them (oneDNN's entries decline).
// Implementations, in order: dtrain's blocked loops for batch statistics
// (kernels/blocked/batch_norm.h; they serve the ONEDNN engine), oneDNN
// (kernels/onednn/batch_norm.h), the reference loops (kernels/reference/batch_norm.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/kernel_list.h"

namespace dtrain::kernels {

struct BatchNormProblem {
  int64_t num = 1, channels = 1, spatial = 1;
  int64_t height = 1;  // the first spatial axis (spatial = height x the rest), for 4-D layouts
  float eps = 1e-5f;
  bool global_stats = false;
  bool scale_shift = false;  // dst = scale * xhat + shift
  bool relu = false;         // then dst = max(dst, 0)
  int64_t groups = 1;        // batch statistics per run of num / groups items (divides num)
  bool operator==(const BatchNormProblem& o) const {
    return num == o.num && channels == o.channels && spatial == o.spatial && height == o.height &&
           eps == o.eps && global_stats == o.global_stats && scale_shift == o.scale_shift &&
           relu == o.relu && groups == o.groups;
  }
};

class BatchNormKernel : public Kernel {
 public:
  // mean and variance (groups x channels floats, group-major): outputs with batch statistics,
  // inputs with global ones (groups 1); scale and shift (channels floats) only with scale_shift.
  // May run in place (src == dst), but Backward then needs the forward's src from elsewhere.
  virtual void Forward(const float* src, float* dst, float* mean, float* variance,
                       const float* scale, const float* shift) = 0;
  // After the forward pass of the same batch, with its statistics and with src holding the
  // forward's src values (the caller keeps them, so that the forward pass copies nothing). diff_src
  // (overwritten) may be diff_dst itself; diff_scale and diff_shift (overwritten, channels floats
  // each) are written only with problem.scale_shift.
  virtual void Backward(const float* src, const float* dst, const float* mean,
                        const float* variance, const float* scale, const float* diff_dst,
                        float* diff_src, float* diff_scale, float* diff_shift) = 0;
};

StatusOr<std::unique_ptr<BatchNormKernel>> ChooseKernel(const BatchNormProblem& problem,
                                                        const KernelRequest& request,
                                                        std::string* report);

}  // namespace dtrain::kernels
