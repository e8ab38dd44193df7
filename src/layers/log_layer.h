// LogLayer: y = log_base(shift + scale * x), element-wise (Caffe's Log); base -1 means e.
//
// One bottom, one top of the same shape (NeuronLayer); may run in place (the input is kept for
// backward). Parameters: log_param.base (default -1: natural log; otherwise it must be > 0 and
// not 1, else an error at Setup), scale (default 1), shift (default 0). Inputs with
// shift + scale * x <= 0 give NaN or -inf, as in Caffe. Backward: dx = dy * scale /
// (ln(base) * (shift + scale * x)).
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class LogLayer : public NeuronLayer {
 public:
  LogLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "Log"; }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;

 private:
  float base_scale_ = 1.f;      // 1 / ln(base)
  float input_scale_ = 1.f;     // log_param.scale
  float input_shift_ = 0.f;     // log_param.shift
  float backward_scale_ = 1.f;  // scale / ln(base)
};

}  // namespace dtrain
