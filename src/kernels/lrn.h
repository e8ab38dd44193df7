// LRN, the op: local response normalisation as Caffe defines it, on NCHW float32 tensors; its
// problem and its implementation list.
//
//   scale = k + alpha / n * sum over the window of src^2,   dst = src * scale^-beta
//
// Across channels the window is local_size channels centred on the channel (n = local_size);
// within a channel it is a local_size x local_size square centred on the pixel
// (n = local_size^2). Windows are zero-padded at the borders: the divisor n never shrinks.
// local_size is odd. (Caffe's WITHIN_CHANNEL ignores `k` and uses 1; the layer decides that.)
//
// The kernel is a UnaryKernel (kernels/unary_kernel.h). Implementations, in order: oneDNN
// (kernels/onednn/lrn.h), the reference loops (kernels/reference/lrn.h).
#pragma once

#include <memory>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/unary_kernel.h"

namespace dtrain::kernels {

struct LrnShape {
  int batch = 1, channels = 1, height = 1, width = 1;
  int local_size = 5;
  float alpha = 1.f, beta = 0.75f, k = 1.f;
  bool operator==(const LrnShape& o) const {
    return batch == o.batch && channels == o.channels && height == o.height && width == o.width &&
           local_size == o.local_size && alpha == o.alpha && beta == o.beta && k == o.k;
  }
};

struct LrnProblem {
  LrnShape shape;
  bool across_channels = true;
  bool operator==(const LrnProblem& o) const {
    return shape == o.shape && across_channels == o.across_channels;
  }
};

StatusOr<std::unique_ptr<UnaryKernel>> ChooseKernel(const LrnProblem& problem,
                                                    const KernelRequest& request,
                                                    std::string* report);

}  // namespace dtrain::kernels
