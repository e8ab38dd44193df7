// ThresholdLayer: y = 1 if x > threshold, else 0, element-wise (Caffe's Threshold).
//
// One bottom, one top of the same shape (NeuronLayer); may run in place. Parameters:
// threshold_param.threshold (default 0). No gradient: Caffe's Backward is NOT_IMPLEMENTED (it
// aborts at the first backward pass). dtrain refuses earlier and with a Status: building a net in
// which this layer's bottom would need a gradient is an error (net.cc, via HasGradient), which
// propagate_down: false (or a bottom that needs no gradient, e.g. data) avoids; force_backward
// skips this layer's bottom. Calling Backward with propagate_down true is an internal error.
#pragma once

#include "layers/neuron_layer.h"

namespace dtrain {

class ThresholdLayer : public NeuronLayer {
 public:
  ThresholdLayer(const LayerParameter& p, const LayerContext& c) : NeuronLayer(p, c) {}
  const char* type() const override { return "Threshold"; }
  bool HasGradient() const override { return false; }
  bool AllowForceBackward(int bottom_index) const override { return false; }

 protected:
  void ForwardElements(const float* x, float* y, int64_t n) const override;
  void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                        int64_t n) const override;
  bool BackwardReadsInput() const override { return false; }
};

}  // namespace dtrain
