// oneDNN concatenation of dense row-major float32 tensors along one axis (an implementation of
// kernels/concat.h):
// forward copies every src into its slice of dst; backward copies each slice of diff_dst back
// into that input's diff_src. Joining 4-D tensors along channels in whole channel blocks, it takes
// and gives them in the blocked layout of the convolutions around it (BlockedDesc4d), so that an
// Inception module's outputs are joined without a relayout. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/concat.h"
#include "kernels/onednn/common.h"

namespace dtrain::onednn {

class Concat : public kernels::JoinKernel {
 public:
  static StatusOr<std::unique_ptr<kernels::JoinKernel>> Create(
      const kernels::ConcatProblem& problem, const kernels::KernelRequest& request);
  std::string implementation() const override { return implementation_; }
  kernels::KernelLayouts layouts() const override { return {nullptr, dst_layout_}; }
  LayoutPtr input_layout(int i) const override { return input_layouts_[i]; }

  void Forward(const std::vector<const float*>& srcs, float* dst) override;
  // diff_src of input i: its slice of diff_dst.
  void Backward(int i, const std::vector<const float*>& srcs, const float* dst,
                const float* diff_dst, float* diff_src) override;

 private:
  template <typename I, typename K, typename... P>
  friend StatusOr<std::unique_ptr<I>> CreateKernel(const char*, const P&...);
  Concat() = default;
  Status Init(const kernels::ConcatProblem& problem, bool training);

  CpuContext context_;
  std::string implementation_;
  std::vector<LayoutPtr> input_layouts_;
  LayoutPtr dst_layout_;
  dnnl::concat forward_;
  std::vector<dnnl::memory> srcs_;
  dnnl::memory dst_;
  Args fwd_args_;
  std::vector<dnnl::reorder> slices_;  // per input: its slice of diff_dst -> diff_src
  std::vector<dnnl::memory> diff_dst_slices_, diff_srcs_;
};

}  // namespace dtrain::onednn
