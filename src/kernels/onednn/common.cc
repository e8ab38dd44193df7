#include "kernels/onednn/common.h"

namespace dtrain::onednn {

using dnnl::memory;

memory::desc PlainDesc(const Dims& dims) {
  memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
  return memory::desc(dims, memory::data_type::f32, strides);
}

bool BlocksOf16Channels() { return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core; }

memory::desc BlockedDesc4d(const Dims& dims) {
  return memory::desc(
      dims, memory::data_type::f32,
      BlocksOf16Channels() ? memory::format_tag::nChw16c : memory::format_tag::nChw8c);
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

memory UserMemory(const CpuContext& context, const Dims& dims) {
  return memory(PlainDesc(dims), context.engine, DNNL_MEMORY_NONE);
}

Relayout::Relayout(const CpuContext& context, const memory::desc& user, const memory::desc& inner,
                   Scratch* scratch)
    : reorders_(user != inner),
      inner_bytes_(inner.get_size()),
      scratch_(scratch),
      user_(user, context.engine, DNNL_MEMORY_NONE) {
  if (!reorders_) return;
  inner_ = memory(inner, context.engine, DNNL_MEMORY_NONE);  // bound to scratch per call
  to_inner_ = dnnl::reorder(user_, inner_);
  to_user_ = dnnl::reorder(inner_, user_);
}

memory& Relayout::In(CpuContext& context, const float* data) {
  Bind(user_, data);
  if (!reorders_) return user_;
  inner_.set_data_handle(scratch_->Take(inner_bytes_));
  to_inner_.execute(context.stream, user_, inner_);
  return inner_;
}

memory& Relayout::Target(float* data) {
  Bind(user_, data);
  if (!reorders_) return user_;
  inner_.set_data_handle(scratch_->Take(inner_bytes_));
  return inner_;
}

void Relayout::Out(CpuContext& context) {
  if (reorders_) to_user_.execute(context.stream, inner_, user_);
}

Accumulator::Accumulator(const CpuContext& context, const memory::desc& user,
                         const memory::desc& inner)
    : user_(user, context.engine, DNNL_MEMORY_NONE), inner_(inner, context.engine) {
  dnnl::post_ops sum;
  sum.append_sum(1.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(sum);
  add_ = dnnl::reorder(inner_, user_, attr);
}

void Accumulator::AddTo(CpuContext& context, float* data) {
  Bind(user_, data);
  add_.execute(context.stream, inner_, user_);
}

}  // namespace dtrain::onednn
