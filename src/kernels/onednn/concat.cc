#include "kernels/onednn/concat.h"

#include "kernels/onednn/memory_layout.h"

namespace dtrain::onednn {

using dnnl::memory;

StatusOr<std::unique_ptr<kernels::JoinKernel>> Concat::Create(
    const kernels::ConcatProblem& problem, const kernels::KernelRequest& request) {
  return CreateKernel<kernels::JoinKernel, Concat>("concat", problem, request.training);
}

Status Concat::Init(const kernels::ConcatProblem& p, bool training) {
  Dims dst_dims = p.srcs[0];
  dst_dims[p.axis] = 0;
  const int64_t block = BlocksOf16Channels() ? 16 : 8;
  bool blocked = p.axis == 1 && dst_dims.size() == 4;
  for (const Dims& d : p.srcs) {
    dst_dims[p.axis] += d[p.axis];
    blocked = blocked && d[1] % block == 0;
  }
  auto desc_of = [blocked](const Dims& d) { return blocked ? BlockedDesc4d(d) : PlainDesc(d); };
  std::vector<memory::desc> src_descs;
  for (const Dims& d : p.srcs) {
    src_descs.push_back(desc_of(d));
    input_layouts_.push_back(LayoutFor(context_, src_descs.back()));
  }
  const memory::desc dst_desc = desc_of(dst_dims);
  dst_layout_ = LayoutFor(context_, dst_desc);
#if DTRAIN_ONEDNN3
  const dnnl::concat::primitive_desc forward_pd(context_.engine, dst_desc, p.axis, src_descs);
#else
  const dnnl::concat::primitive_desc forward_pd(dst_desc, p.axis, src_descs, context_.engine);
#endif
  forward_ = dnnl::concat(forward_pd);
  implementation_ = forward_pd.impl_info_str();
  for (size_t i = 0; i < p.srcs.size(); ++i) {
    srcs_.push_back(memory(src_descs[i], context_.engine, DNNL_MEMORY_NONE));
    fwd_args_[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = srcs_.back();
  }
  dst_ = memory(dst_desc, context_.engine, DNNL_MEMORY_NONE);
  fwd_args_[DNNL_ARG_DST] = dst_;
  if (!training) return Status::Ok();
  Dims offsets(dst_dims.size(), 0);
  for (const Dims& d : p.srcs) {
    // A view of diff_dst's slice for this input; it shares diff_dst's buffer.
    diff_dst_slices_.push_back(
        memory(dst_desc.submemory_desc(d, offsets), context_.engine, DNNL_MEMORY_NONE));
    diff_srcs_.push_back(memory(desc_of(d), context_.engine, DNNL_MEMORY_NONE));
    slices_.emplace_back(diff_dst_slices_.back(), diff_srcs_.back());
    offsets[p.axis] += d[p.axis];
  }
  return Status::Ok();
}

void Concat::Forward(const std::vector<const float*>& srcs, float* dst) {
  for (size_t i = 0; i < srcs.size(); ++i) Bind(srcs_[i], srcs[i]);
  Bind(dst_, dst);
  forward_.execute(context_.stream, fwd_args_);
}

void Concat::Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                      const float* diff_dst, float* diff_src) {
  Bind(diff_dst_slices_[i], diff_dst);
  Bind(diff_srcs_[i], diff_src);
  slices_[i].execute(context_.stream, diff_dst_slices_[i], diff_srcs_[i]);
}

}  // namespace dtrain::onednn
