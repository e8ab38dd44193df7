// PowerLayer: y = (shift + scale * x) ^ power, element-wise (Caffe's Power).
//
// One bottom, one top of the same shape (NeuronLayer); may run in place (the input is kept for
// backward). Parameters: power_param.power (default 1), scale (default 1), shift (default 0).
// Caffe's special cases: when power * scale == 0 the input is ignored, y = 1 for power 0 and
// shift ^ power otherwise, and dx = 0. Backward otherwise, with u = shift + scale * x:
// dx = dy * scale for power 1, dy * 2 * scale * u for power 2, else dy * power * scale * y / u.
// Where u == 0 Caffe's y / u is 0 / 0 (NaN); dtrain gives the limit power * scale * 0^(power - 1)
// instead (0 for power > 1, inf for power < 1). Inputs with u < 0 and a non-integer power give
// NaN, as in Caffe.
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class PowerLayer : public NeuronLayer {
 public:
  PowerLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "Power"; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;

 private:
  float power_ = 1.f;
  float scale_ = 1.f;
  float shift_ = 0.f;
  float diff_scale_ = 1.f;  // power * scale
};

}  // namespace dtrain
