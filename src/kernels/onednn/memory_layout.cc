#include "kernels/onednn/memory_layout.h"

namespace dtrain::onednn {

using dnnl::memory;

MemoryLayout::MemoryLayout(const CpuContext& context, const memory::desc& desc)
    : desc_(desc),
      context_(context),
      plain_(PlainDesc(DimsOf(desc)), context.engine, DNNL_MEMORY_NONE),
      blocked_(desc, context.engine, DNNL_MEMORY_NONE),
      to_plain_(blocked_, plain_),
      from_plain_(plain_, blocked_) {}

bool MemoryLayout::Equals(const TensorLayout& other) const {
  const auto* layout = dynamic_cast<const MemoryLayout*>(&other);
  return layout != nullptr && layout->desc_ == desc_;
}

void MemoryLayout::ToPlain(const float* from, float* plain) const {
  Bind(blocked_, from);
  Bind(plain_, plain);
  to_plain_.execute(context_.stream, blocked_, plain_);
}

void MemoryLayout::FromPlain(const float* plain, float* to) const {
  Bind(plain_, plain);
  Bind(blocked_, to);
  from_plain_.execute(context_.stream, plain_, blocked_);
}

std::string MemoryLayout::name() const {
#if DTRAIN_ONEDNN3
  const Dims blocks = desc_.get_inner_blks(), axes = desc_.get_inner_idxs();
  const int count = desc_.get_inner_nblks();
#else
  const dnnl_blocking_desc_t& blocking = desc_.data.format_desc.blocking;
  const auto* blocks = blocking.inner_blks;
  const auto* axes = blocking.inner_idxs;
  const int count = blocking.inner_nblks;
#endif
  std::string text = "oneDNN";
  for (int i = 0; i < count; ++i) {
    text += " block " + std::to_string(blocks[i]) + " of axis " + std::to_string(axes[i]);
  }
  std::string dims;
  for (memory::dim d : DimsOf(desc_)) dims += (dims.empty() ? "" : "x") + std::to_string(d);
  return text + ", " + dims;
}

LayoutPtr LayoutFor(const CpuContext& context, const memory::desc& desc) {
  if (desc == PlainDesc(DimsOf(desc))) return nullptr;
  return std::make_shared<MemoryLayout>(context, desc);
}

memory::desc DescOf(const LayoutPtr& layout, const Dims& dims) {
  if (!layout) return PlainDesc(dims);
  return static_cast<const MemoryLayout&>(*layout).desc();
}

}  // namespace dtrain::onednn
