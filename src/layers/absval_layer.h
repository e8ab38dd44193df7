// AbsValLayer: y = |x|, element-wise (Caffe's AbsVal).
//
// One bottom, one top of the same shape (NeuronLayer). No parameters. Does not run in place, as
// in Caffe (top == bottom is an error at Setup). Backward: dx = sign(x) * dy, with sign(0) = 0.
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class AbsValLayer : public NeuronLayer {
 public:
  AbsValLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "AbsVal"; }

 protected:
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;
  bool AllowsInPlace() const override { return false; }
};

}  // namespace dtrain
