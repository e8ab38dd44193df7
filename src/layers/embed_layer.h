// EmbedLayer: looks rows up in a learned table (Caffe's Embed), e.g. word vectors by word index.
//
// One bottom of indices (any shape, M values, each an integer in [0, input_dim), stored as
// floats), one top of shape bottom.shape + [num_output]: top row m = W[index m] (+ bias). Learnable
// blobs: W of shape input_dim x num_output (the transpose of InnerProduct's layout, as in Caffe),
// filled by embed_param.weight_filler, and, when embed_param.bias_term (default true), a bias of
// num_output values filled by bias_filler. num_output and input_dim must be positive. An index
// that is not an integer or lies outside [0, input_dim) is an error in Forward. Backward: W's row
// of each index accumulates its top diff row, the bias accumulates every top diff row; the
// indices get no gradient (Caffe refuses to backpropagate to them): a net in which they would need
// one is an error when built. Not in place.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class EmbedLayer : public Layer {
 public:
  EmbedLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Embed"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  bool BottomHasGradient(int bottom_index) const override { return false; }
  bool AllowForceBackward(int bottom_index) const override { return false; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int num_output_ = 0;  // N
  int input_dim_ = 0;   // K
  bool bias_term_ = true;
};

}  // namespace dtrain
