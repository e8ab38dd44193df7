// ScaleLayer: y = x * s (+ b), with s (and b) broadcast over x, as Caffe's Scale layer.
//
// Bottoms: x, and optionally s (otherwise s is learned). s's shape must equal x's dims from
// scale_param.axis (default 1) on, for s's number of axes; a scalar s (0 axes) scales everything.
// So x is viewed as outer x scale_dim x inner. With a learned s, num_axes (default 1; -1: all
// axes from `axis`) sets its shape and `filler` (default constant 1) its initial value.
// bias_term (default false) adds a learned b of s's shape, initialised by bias_filler (default
// constant 0) and computed by an inner BiasLayer exactly as a following Bias layer would.
// Learnable blobs: [s] when s is learned, then [b] when bias_term.
// One top shaped like x; may run in place (x is then saved for Backward).
// Backward: dx = dy * s; ds = sum of dy * x over outer and inner (accumulated when learned,
// overwritten when s is bottom[1]); db = sum of dy.
#pragma once

#include <memory>

#include "layers/bias_layer.h"
#include "layers/layer.h"

namespace dtrain {

class ScaleLayer : public Layer {
 public:
  ScaleLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Scale"; }
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
  const Tensor& scale(const TensorVec& bottom) const {
    return bottom.size() > 1 ? *bottom[1] : *blobs_[0];
  }

  int64_t outer_ = 1, dim_ = 1, inner_ = 1;
  std::unique_ptr<BiasLayer> bias_layer_;  // when bias_term; runs in place on the top
  Tensor bottom_copy_;                     // x when running in place
};

}  // namespace dtrain
