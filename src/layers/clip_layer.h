// ClipLayer: y = max(min, min(max, x)), element-wise (Caffe's Clip).
//
// One bottom, one top of the same shape (NeuronLayer); may run in place. Parameters:
// clip_param.min and clip_param.max, both required (Caffe's schema marks them so); min > max is
// an error at Setup. Backward, as in Caffe: dx = dy where min <= x <= max (boundaries included),
// 0 elsewhere.
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class ClipLayer : public NeuronLayer {
 public:
  ClipLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "Clip"; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;

 private:
  float min_ = 0.f;
  float max_ = 0.f;
};

}  // namespace dtrain
