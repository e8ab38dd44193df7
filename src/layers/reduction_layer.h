// ReductionLayer: reduces every axis from reduction_param.axis on to one number (Caffe's
// Reduction).
//
// One bottom, one top of shape bottom.shape[0:axis] (axis 0, the default, gives a scalar of shape
// {}); negative axes count from the end. For each of the count(0, axis) slices x of count(axis)
// values, reduction_param.operation gives SUM: sum x, ASUM: sum |x|, SUMSQ: sum x^2, MEAN: sum x /
// count(axis); the result is scaled by reduction_param.coeff (default 1). Backward: dx = coeff *
// dy times 1 (SUM), sign(x) (ASUM, 0 at 0), 2x (SUMSQ) or 1 / count(axis) (MEAN). Not in place.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class ReductionLayer : public Layer {
 public:
  ReductionLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Reduction"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int64_t num_ = 1;    // slices: count(0, axis)
  int64_t dim_ = 1;    // values per slice: count(axis)
  float coeff_ = 1.f;  // coeff, divided by dim_ for MEAN
};

}  // namespace dtrain
