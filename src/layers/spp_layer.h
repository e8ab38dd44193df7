// SPPLayer: Caffe's "SPP", spatial pyramid pooling (He et al.): a fixed-length output from any
// image size.
//
// One bottom (N, C, H, W), one top. Parameters: spp_param.pyramid_height L (>= 1) and pool
// (MAX, AVE, STOCHASTIC; default MAX). Level l < L pools the image into 2^l x 2^l bins with
// Caffe's pooling: kernel k = ceil(H / 2^l), stride k, pad (k * 2^l - H + 1) / 2 (each axis
// alike), which Pooling requires to be below the kernel (so very small images are an error, as
// in Caffe). The top is level 0's (N, C, 1, 1) output when L = 1, else every level's output
// flattened per item and concatenated, level 0 first: (N, C * (1 + 4 + ... + 4^(L-1))).
// Backward sums the levels' pooling gradients. The levels are rebuilt when H or W changes.
#pragma once

#include <memory>
#include <vector>

#include "layers/layer.h"
#include "layers/pooling_layer.h"

namespace dtrain {

class SPPLayer : public Layer {
 public:
  SPPLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c), context_(c) {}
  const char* type() const override { return "SPP"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  struct Level {
    std::unique_ptr<PoolingLayer> pool;
    Tensor top;
  };
  // Makes the L pooling layers for a bottom of this H x W.
  Status BuildLevels(Tensor* bottom);

  LayerContext context_;
  int pyramid_height_ = 0;
  std::vector<Level> levels_;
  int built_h_ = -1, built_w_ = -1;
  std::vector<float> diff_sum_;  // Backward: the levels' bottom gradients summed
};

}  // namespace dtrain
