// MVNLayer: mean-variance normalisation (Caffe's MVN).
//
// One bottom of at most 4 axes, read as Caffe's legacy N x C x H x W (missing trailing axes are
// 1); one top of shape N x C x H x W (4 axes, as in Caffe, whatever the bottom's count of axes).
// Each group, the H*W values of one (n, c) or with mvn_param.across_channels (default false) the
// C*H*W values of one n, becomes
//   y = (x - mean)                        normalize_variance: false
//   y = (x - mean) / (sqrt(var) + eps)    normalize_variance: true (the default)
// with var = mean((x - mean)^2) over the group and eps = mvn_param.eps (default 1e-9). Backward
// follows Caffe: dx = dy - mean(dy), or (dy - mean(dy) - y * mean(y * dy)) / (sqrt(var) + eps)
// with the variance (exact for eps = 0). May run in place.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class MVNLayer : public Layer {
 public:
  MVNLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "MVN"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int64_t groups_ = 0;          // N, or N * C
  int64_t group_size_ = 0;      // C * H * W, or H * W
  std::vector<float> divisor_;  // sqrt(var) + eps per group (normalize_variance)
};

}  // namespace dtrain
