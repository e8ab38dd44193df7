// MemoryLayout: a oneDNN memory format (e.g. nChw16c) as a tensor layout (core/tensor_layout.h),
// so that a kernel's blocked output reaches the next kernel that wants the same format without a
// reorder, and reaches plain readers through one.
#pragma once

#include "core/tensor_layout.h"
#include "kernels/onednn/common.h"

namespace dtrain::onednn {

class MemoryLayout : public TensorLayout {
 public:
  MemoryLayout(const CpuContext& context, const dnnl::memory::desc& desc);

  const dnnl::memory::desc& desc() const { return desc_; }
  size_t bytes() const override { return desc_.get_size(); }
  bool Equals(const TensorLayout& other) const override;
  void ToPlain(const float* from, float* plain) const override;
  void FromPlain(const float* plain, float* to) const override;
  std::string name() const override;

 private:
  dnnl::memory::desc desc_;
  // Reorders run on this context; the memory objects are rebound per call.
  mutable CpuContext context_;
  mutable dnnl::memory plain_, blocked_;
  dnnl::reorder to_plain_, from_plain_;
};

// The layout for a primitive's `desc`: null when it is the plain row-major one.
LayoutPtr LayoutFor(const CpuContext& context, const dnnl::memory::desc& desc);
// The desc of a tensor of `dims` in `layout` (plain when null).
dnnl::memory::desc DescOf(const LayoutPtr& layout, const Dims& dims);

}  // namespace dtrain::onednn
