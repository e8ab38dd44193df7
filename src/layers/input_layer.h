// InputLayer: tops whose values are set from outside the net (deploy nets, tests, the net's legacy
// `input:` fields).
//
// Bottoms: none. Tops: one or more, shaped once at setup by input_param.shape (one shape per top,
// or a single shape for all tops, or none to leave the tops as they are). Forward and Backward do
// nothing: whoever owns the tops writes their data.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class InputLayer : public Layer {
 public:
  InputLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Input"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int MinTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override { return Status::Ok(); }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override {
    return Status::Ok();
  }
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}
};

}  // namespace dtrain
