// SwishLayer: y = x * sigmoid(beta * x), element-wise (Caffe's Swish).
//
// One bottom, one top of the same shape (NeuronLayer); may run in place (the input is kept for
// backward). Parameters: swish_param.beta (default 1). The sigmoid is Caffe's tanh form,
// 0.5 * tanh(0.5 * beta * x) + 0.5, which never overflows. Backward, as in Caffe, with
// s = sigmoid(beta * x): dx = dy * (beta * y + s * (1 - beta * y)).
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class SwishLayer : public NeuronLayer {
 public:
  SwishLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "Swish"; }

 protected:
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;
};

}  // namespace dtrain
