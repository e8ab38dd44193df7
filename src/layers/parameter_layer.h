// ParameterLayer: a learnable blob offered as a top (Caffe's Parameter), e.g. a learned bias or a
// learned input for a net to optimise.
//
// No bottom, one top of shape parameter_param.shape (no shape: a scalar of shape {}). One
// learnable blob of that shape, zero-filled (Caffe's Parameter has no filler; weights loaded from
// a .caffemodel replace it). Dims must not be negative. Forward copies the blob into the top;
// Backward adds the top diff to the blob's diff. (Caffe makes the top share the blob's data and
// diff; dtrain copies, so the net may plan the top's diff buffer like any other and a shared
// `param { name }` stays correct. The values are the same.) Not in place.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class ParameterLayer : public Layer {
 public:
  ParameterLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Parameter"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  std::vector<int> dims_;  // parameter_param.shape
};

}  // namespace dtrain
