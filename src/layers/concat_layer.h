// ConcatLayer: joins its bottoms along one axis.
//
// Bottoms: one or more, with the same number of axes and equal dims except along the concat axis.
// Top: their concatenation, in bottom order. Parameters: concat_param.axis (default 1, negative
// counts from the end) or the legacy concat_dim (not both). With a single bottom the top shares its
// data and diff. Backward copies each bottom's slice of the top diff back. Computed by the Concat
// op's kernel (kernels/concat.h).
#pragma once

#include <vector>

#include "kernels/concat.h"
#include "layers/layer.h"

namespace dtrain {

class ConcatLayer : public Layer {
 public:
  ConcatLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Concat"; }
  int MinBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::ConcatProblem problem_;  // updated in place, so a steady-state Reshape allocates nothing
  kernels::KernelChoice<kernels::JoinKernel, kernels::ConcatProblem> kernel_;
  std::vector<const float*> sources_;  // bottom data pointers
};

}  // namespace dtrain
