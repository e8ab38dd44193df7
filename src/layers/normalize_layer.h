// NormalizeLayer: SSD's L2 normalisation (Wei Liu's fork, carried by Intel Caffe), as on
// conv4_3 of SSD300: each group of values divided by its L2 norm, then multiplied by a learned
// scale.
//
// One bottom (N, C, H, W) of 2 to 4 axes (the missing trailing axes count as 1, as Caffe's
// accessors read them; more axes are an error), one top of the same shape; may run in place.
// Parameters (norm_param):
// - across_spatial (default true): a group is one item, all its C x H x W values; false: one
//   position (n, h, w), its C values.
// - eps (default 1e-10; negative or not finite is an error): added to the group's sum of squares
//   before the square root, norm = sqrt(sum x^2 + eps), as Intel Caffe does.
// - channel_shared (default true): learnable blob 0 is one scale, shape {}; false: one per
//   channel, shape {C}. Filled by scale_filler, default constant 1. The bottom keeps its C.
// Forward: xhat = x / norm (kept, with the norms, for Backward), y = s_c * xhat.
// Backward, exact for every scale: d s_c += sum over the elements of channel c (every channel when
// shared) of xhat * dy, computed directly (Caffe divides sum(y * dy) by s_c, NaN at s_c = 0);
// dx_i = (s_c(i) * dy_i - xhat_i * sum_j s_c(j) * xhat_j * dy_j) / norm, j over i's group. Caffe
// multiplies (dy_i - xhat_i * sum_j xhat_j * dy_j) / norm by s_c(i) instead, which is this only
// when every channel has the same scale (channel_shared); with per-channel scales dtrain's is
// the true gradient and Caffe's an approximation.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class NormalizeLayer : public Layer {
 public:
  NormalizeLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Normalize"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // The error for a bottom of other than 2 to 4 axes, or Ok.
  Status CheckAxes(const Tensor& bottom) const;
  float Scale(int c) const { return blobs_[0]->data()[channel_shared_ ? 0 : c]; }

  bool across_spatial_ = true;
  bool channel_shared_ = true;
  float eps_ = 1e-10f;
  int num_ = 0, channels_ = 0;
  int64_t spatial_ = 1;       // H x W
  Tensor normalized_;         // xhat, the bottom's shape
  std::vector<float> norms_;  // per item (across_spatial) or per item and position
  std::vector<float> sums_;   // Backward's sum_j s xhat dy per position of one item
};

}  // namespace dtrain
