// ELULayer: the exponential linear unit y = x for x > 0, alpha * (exp(x) - 1) otherwise,
// element-wise (Caffe's ELU).
//
// One bottom, one top of the same shape (NeuronLayer); may run in place. Parameters:
// elu_param.alpha (default 1). Backward, as in Caffe: dx = dy for x > 0, dy * (y + alpha)
// (= dy * alpha * exp(x)) for x <= 0.
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class ELULayer : public NeuronLayer {
 public:
  ELULayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "ELU"; }

 protected:
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;
};

}  // namespace dtrain
