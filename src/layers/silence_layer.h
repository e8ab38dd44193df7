// SilenceLayer: consumes blobs that nothing else uses, so the net does not report them as outputs.
//
// Bottoms: one or more, of any shape. Tops: none. Forward does nothing; Backward writes zero
// gradients to the bottoms that ask for one.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class SilenceLayer : public Layer {
 public:
  SilenceLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Silence"; }
  int MinBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 0; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override { return Status::Ok(); }

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override {
    return Status::Ok();
  }
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;
};

}  // namespace dtrain
