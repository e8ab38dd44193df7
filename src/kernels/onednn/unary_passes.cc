#include "kernels/onednn/unary_passes.h"

namespace dtrain::onednn {

void UnaryPasses::Set(const CpuContext& context, const Dims& dims, dnnl::primitive forward,
                      dnnl::primitive backward) {
  forward_ = forward;
  backward_ = backward;
  src_ = UserMemory(context, dims);
  dst_ = UserMemory(context, dims);
  fwd_args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}};
  bwd_dst_ = UserMemory(context, dims);
  diff_dst_ = UserMemory(context, dims);
  diff_src_ = UserMemory(context, dims);
  bwd_args_ = {
      {DNNL_ARG_DST, bwd_dst_}, {DNNL_ARG_DIFF_DST, diff_dst_}, {DNNL_ARG_DIFF_SRC, diff_src_}};
}

void UnaryPasses::Forward(CpuContext& context, const float* src, float* dst) {
  Bind(src_, src);
  Bind(dst_, dst);
  forward_.execute(context.stream, fwd_args_);
}

void UnaryPasses::Backward(CpuContext& context, const float* dst, const float* diff_dst,
                           float* diff_src) {
  Bind(bwd_dst_, dst);
  Bind(diff_dst_, diff_dst);
  Bind(diff_src_, diff_src);
  backward_.execute(context.stream, bwd_args_);
}

}  // namespace dtrain::onednn
