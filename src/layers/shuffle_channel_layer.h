// ShuffleChannelLayer: ShuffleNet's channel shuffle, the `ShuffleChannel` type of its Caffe
// ports (a fork's layer; BVLC Caffe has none).
//
// One bottom of shape (N, C, ...), one top of the same shape; not in place. Parameter:
// shuffle_channel_param.group g (default 1), which must divide C. With C = g * k, the channels
// are read as a g x k matrix and transposed: top channel j * g + i = bottom channel i * k + j
// (i < g, j < k), the inner axes moving with their channel. group 1 (or g = C) copies.
// Backward applies the inverse permutation to the top diff.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class ShuffleChannelLayer : public Layer {
 public:
  ShuffleChannelLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "ShuffleChannel"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // Copies each channel plane of `from` to its shuffled place in `to` (inverse: back again).
  void Permute(const float* from, float* to, bool inverse) const;

  int group_ = 1;
  int num_ = 0, channels_ = 0;
  int64_t plane_ = 0;  // elements per channel (the product of the axes after C)
};

}  // namespace dtrain
