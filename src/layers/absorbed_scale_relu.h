// What a layer that absorbs Caffe's per-channel Scale and a ReLU after it (Layer::Absorb) keeps of
// them: BatchNorm does (layers/batch_norm_layer.h), and a 1x1 Convolution that absorbed a
// BatchNorm (layers/convolution_layer.h). The Scale's blobs stay the Scale's (snapshots and weight
// files are unchanged); the absorbing layer's kernel writes their gradients here, and
// AddDiffs adds them to the Scale's.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class AbsorbedScaleRelu {
 public:
  // Forgets what was absorbed, for a layer of `channels` output channels.
  void Reset(int channels);
  // Takes `next` if it may come next: a Scale with a learned per-channel scale over the channels
  // (one bottom, axis 1, num_axes 1, with or without bias_term; channels > 1), before any ReLU;
  // a ReLU with negative_slope 0.
  bool Absorb(Layer& next);

  bool has_scale() const { return scale_layer_ != nullptr; }
  bool relu() const { return relu_; }
  // Per channel: the Scale's scale (ones without a Scale) and shift (zeros without bias_term).
  const float* scale() const;
  const float* shift() const;
  // Where the kernel writes the Scale's gradients (channels floats each).
  float* diff_scale() { return diff_scale_.data(); }
  float* diff_shift() { return diff_shift_.data(); }
  // Whether the Scale's blobs take gradients; AddDiffs adds the kernel's to those that do.
  bool wants_diffs() const;
  void AddDiffs();

 private:
  int channels_ = 0;
  Layer* scale_layer_ = nullptr;
  bool has_bias_ = false;
  bool relu_ = false;
  std::vector<float> ones_, zeros_;  // the scale and shift of what is absent
  std::vector<float> diff_scale_, diff_shift_;
};

}  // namespace dtrain
