// oneDNN convolution over 2 or 3 spatial axes (a 1-D one arrives as 2-D), an implementation of
// kernels/convolution.h (plain NCHW or NCDHW buffers; the reference's results within float
// rounding); declines problems of more spatial axes.
//
// Primitives (forward; for training also backward-data and backward-weights) are created once
// per problem with oneDNN choosing the layouts it computes fastest in (blocked, e.g. nChw8c on
// AVX2); the kernel reorders inputs into them and results back, into buffers it allocated at
// the net's Scratch for the duration of one call, so a call allocates nothing. Weight and bias
// gradients accumulate (+=) like the reference's. Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "kernels/convolution.h"
#include "kernels/onednn/common.h"
#include "kernels/onednn/weighted_passes.h"

namespace dtrain::onednn {

class Convolution : public WeightedKernel {
 public:
  // Declines (with the reason) a problem oneDNN cannot compute.
  static StatusOr<std::unique_ptr<kernels::LinearKernel>> Create(
      const kernels::ConvolutionProblem& problem, const kernels::KernelRequest& request);

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  Convolution() = default;
  Status Init(const kernels::ConvolutionShape& shape, bool bias, bool training, Scratch* scratch);
  // The primitives of one algorithm (Init tries Winograd first where it may apply).
  Status Build(const kernels::ConvolutionShape& shape, bool bias, bool training,
               dnnl::algorithm algo);
};

}  // namespace dtrain::onednn
