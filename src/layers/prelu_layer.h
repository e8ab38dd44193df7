// PReLULayer: parametric ReLU, y = max(0, x) + a_c * min(0, x) with a learned slope a_c per channel
// (axis 1), or one slope for all channels when prelu_param.channel_shared.
//
// One bottom with at least 2 axes (N, C, ...), one top of the same shape; may run in place (the
// bottom is then saved for Backward). Learnable blob 0: the slopes, shape {C}, or {} (a scalar)
// when channel_shared; initialised by prelu_param.filler, default constant 0.25. Backward: da_c +=
// sum over channel c of dy * x where x <= 0; dx = dy * (x > 0 ? 1 : a_c).
#pragma once

#include "layers/layer.h"

namespace dtrain {

class PReLULayer : public Layer {
 public:
  PReLULayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "PReLU"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // The slope index of element i: i's channel, or 0 when shared.
  int SlopeIndex(int64_t i) const {
    return channel_shared_ ? 0 : static_cast<int>((i / inner_) % channels_);
  }

  bool channel_shared_ = false;
  int channels_ = 1;
  int64_t inner_ = 1;   // elements per (n, c): count(2)
  Tensor bottom_copy_;  // the bottom's data when running in place
};

}  // namespace dtrain
