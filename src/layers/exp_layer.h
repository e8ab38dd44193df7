// ExpLayer: y = base ^ (shift + scale * x), element-wise (Caffe's Exp); base -1 means e.
//
// One bottom, one top of the same shape (NeuronLayer); may run in place. Parameters:
// exp_param.base (default -1: e; otherwise it must be > 0, else an error at Setup), scale
// (default 1), shift (default 0). Computed as Caffe does: y = outer * exp(inner * x) with
// inner = ln(base) * scale and outer = base ^ shift. Backward: dx = dy * inner * y, from the top
// alone.
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class ExpLayer : public NeuronLayer {
 public:
  ExpLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "Exp"; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;
  bool BackwardReadsInput() const override { return false; }

 private:
  float inner_scale_ = 1.f;
  float outer_scale_ = 1.f;
};

}  // namespace dtrain
