#include "layers/absorbed_scale_relu.h"

#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

void AbsorbedScaleRelu::Reset(int channels) {
  channels_ = channels;
  scale_layer_ = nullptr;
  has_bias_ = relu_ = false;
  ones_.assign(channels, 1.f);
  zeros_.assign(channels, 0.f);
  diff_scale_.assign(channels, 0.f);
  diff_shift_.assign(channels, 0.f);
}

bool AbsorbedScaleRelu::Absorb(Layer& next) {
  const std::string type = next.type();
  if (type == "ReLU" && !relu_) {
    if (next.layer_param().relu_param().negative_slope() != 0.f) return false;
    relu_ = true;
    return true;
  }
  if (type != "Scale" || scale_layer_ != nullptr || relu_) return false;
  const ScaleParameter& p = next.layer_param().scale_param();
  const size_t blobs = p.bias_term() ? 2 : 1;
  const bool per_channel = p.axis() == 1 && p.num_axes() == 1 && next.blobs().size() == blobs &&
                           next.blobs()[0]->count() == channels_ && channels_ > 1;
  if (!per_channel) return false;
  scale_layer_ = &next;
  has_bias_ = p.bias_term();
  return true;
}

const float* AbsorbedScaleRelu::scale() const {
  return scale_layer_ ? scale_layer_->blobs()[0]->data() : ones_.data();
}

const float* AbsorbedScaleRelu::shift() const {
  return has_bias_ ? scale_layer_->blobs()[1]->data() : zeros_.data();
}

bool AbsorbedScaleRelu::wants_diffs() const {
  return scale_layer_ && (scale_layer_->param_propagate_down(0) ||
                          (has_bias_ && scale_layer_->param_propagate_down(1)));
}

void AbsorbedScaleRelu::AddDiffs() {
  auto add = [](const std::vector<float>& diff, Tensor* blob) {
    float* d = blob->mutable_diff();
    for (size_t c = 0; c < diff.size(); ++c) d[c] += diff[c];
  };
  if (!scale_layer_) return;
  if (scale_layer_->param_propagate_down(0)) add(diff_scale_, scale_layer_->blobs()[0].get());
  if (has_bias_ && scale_layer_->param_propagate_down(1)) {
    add(diff_shift_, scale_layer_->blobs()[1].get());
  }
}

}  // namespace dtrain
