// DropoutLayer: in TRAIN, zeroes each element with probability p = dropout_param.dropout_ratio
// (default 0.5) and scales the survivors by 1 / (1 - p) (Caffe's "inverted" dropout), so TEST is
// the identity.
//
// One bottom, one top of the same shape; may run in place. The keep mask is drawn from the layer's
// rng_ on each TRAIN Forward and reused by the following Backward: dx = dy * mask / (1 - p) in
// TRAIN, dx = dy in TEST.
#pragma once

#include <cstdint>

#include "layers/layer.h"

namespace dtrain {

class DropoutLayer : public Layer {
 public:
  DropoutLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Dropout"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  float ratio_ = 0.5f;
  float scale_ = 2.f;
  std::vector<uint8_t> mask_;  // 1 = kept, one per element
};

}  // namespace dtrain
