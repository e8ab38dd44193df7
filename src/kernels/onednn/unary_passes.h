// The two passes of an element-wise or row-wise op whose backward needs only its output (ReLU
// from dst, softmax): forward src -> dst and backward (dst, diff_dst) -> diff_src, on dense plain
// buffers of one shape, with the memory objects and arguments made once. Both passes may run in
// place where the primitive allows it. Not thread-safe.
#pragma once

#include <string>

#include "kernels/onednn/common.h"
#include "kernels/unary_kernel.h"

namespace dtrain::onednn {

class UnaryPasses {
 public:
  // `backward` may be an empty primitive (inference only).
  void Set(const CpuContext& context, const Dims& dims, dnnl::primitive forward,
           dnnl::primitive backward);

  void Forward(CpuContext& context, const float* src, float* dst);
  void Backward(CpuContext& context, const float* dst, const float* diff_dst, float* diff_src);

 private:
  dnnl::primitive forward_, backward_;
  dnnl::memory src_, dst_, bwd_dst_, diff_dst_, diff_src_;
  Args fwd_args_, bwd_args_;
};

// What ReLU and Softmax share: their Init builds the primitives and sets `passes_` up; backward
// reads dst, not src.
class DstBackwardKernel : public kernels::UnaryKernel {
 public:
  // oneDNN's name for the implementation it picked, e.g. "jit:avx2".
  std::string implementation() const override { return implementation_; }

  void Forward(const float* src, float* dst) override { passes_.Forward(context_, src, dst); }
  void Backward(const float* src, const float* dst, const float* diff_dst,
                float* diff_src) override {
    passes_.Backward(context_, dst, diff_dst, diff_src);
  }

 protected:
  CpuContext context_;
  std::string implementation_;
  UnaryPasses passes_;
};

}  // namespace dtrain::onednn
