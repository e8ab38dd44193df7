// oneDNN concatenation of dense row-major float32 tensors along one axis (Caffe's Concat):
// forward copies every src into its slice of dst; backward copies each slice of diff_dst back
// into that input's diff_src. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/onednn/common.h"

namespace dtrain::onednn {

struct ConcatProblem {
  std::vector<Dims> srcs;  // every input's dims; equal except along `axis`
  int axis = 1;
  bool operator==(const ConcatProblem& o) const { return srcs == o.srcs && axis == o.axis; }
};

class Concat {
 public:
  static StatusOr<std::unique_ptr<Concat>> Create(const ConcatProblem& problem, bool training);
  std::string implementation() const { return implementation_; }

  void Forward(const std::vector<const float*>& srcs, float* dst);
  // diff_src of input i: its slice of diff_dst.
  void Backward(int i, const float* diff_dst, float* diff_src);

 private:
  template <typename K, typename... P>
  friend StatusOr<std::unique_ptr<K>> CreateKernel(const char*, const P&...);
  Concat() = default;
  Status Init(const ConcatProblem& problem, bool training);

  CpuContext context_;
  std::string implementation_;
  dnnl::concat forward_;
  std::vector<dnnl::memory> srcs_;
  dnnl::memory dst_;
  Args fwd_args_;
  std::vector<dnnl::reorder> slices_;  // per input: its slice of diff_dst -> diff_src
  std::vector<dnnl::memory> diff_dst_slices_, diff_srcs_;
};

}  // namespace dtrain::onednn
