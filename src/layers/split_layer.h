// SplitLayer: hands one bottom to several consumers. The net inserts it wherever a blob feeds more
// than one layer, so that each consumer gets its own diff.
//
// One bottom; one or more tops, each sharing the bottom's data (no copy) but with its own diff.
// Never in place. Backward: the bottom diff is the sum of the top diffs, computed by the Eltwise
// op's SUM kernel (kernels/eltwise.h).
#pragma once

#include <vector>

#include "kernels/eltwise.h"
#include "layers/layer.h"

namespace dtrain {

class SplitLayer : public Layer {
 public:
  SplitLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Split"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::KernelChoice<kernels::JoinKernel, kernels::EltwiseProblem> sum_;
  std::vector<const float*> top_diffs_;
};

}  // namespace dtrain
