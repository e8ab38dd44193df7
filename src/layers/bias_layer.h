// BiasLayer: y = x + b, with b broadcast over x.
//
// Bottoms: x, and optionally b (otherwise b is learned). b's shape must equal x's dims from
// bias_param.axis (default 1) on, for b's number of axes; a scalar b (0 axes) is added everywhere.
// So x is viewed as outer x bias_dim x inner and b has bias_dim values. With a learned b, num_axes
// (default 1; -1: all axes from `axis`) sets its shape and `filler` (default constant 0) its
// initial value; it is blob 0. One top shaped like x; may run in place. Backward: dx = dy; db = sum
// of dy over outer and inner (accumulated when learned).
#pragma once

#include "layers/layer.h"

namespace dtrain {

class BiasLayer : public Layer {
 public:
  BiasLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Bias"; }
  int MinBottomBlobs() const override { return 1; }
  int MaxBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int64_t outer_ = 1, dim_ = 1, inner_ = 1;
};

}  // namespace dtrain
