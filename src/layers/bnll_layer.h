// BNLLLayer: the binomial normal log-likelihood y = log(1 + exp(x)) (softplus), element-wise
// (Caffe's BNLL).
//
// One bottom, one top of the same shape (NeuronLayer); may run in place. No parameters.
// Forward, stable as in Caffe: y = x + log(1 + exp(-x)) for x > 0, log(1 + exp(x)) otherwise.
// Backward: dx = dy * e / (1 + e) with e = exp(min(x, 50)) (Caffe's kBNLL_THRESHOLD), i.e.
// dy * sigmoid(x) without overflow.
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class BNLLLayer : public NeuronLayer {
 public:
  BNLLLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "BNLL"; }

 protected:
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;
};

}  // namespace dtrain
