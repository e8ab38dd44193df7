#include "layers/lrn_layer.h"

#include <string>

#include "proto/layer_params.pb.h"

namespace dtrain {

Status LRNLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const LRNParameter& p = param_.lrn_param();
  if (p.local_size() == 0 || p.local_size() % 2 == 0) {
    return Error("local_size must be odd, got " + std::to_string(p.local_size()));
  }
  across_channels_ = p.norm_region() == LRNParameter::ACROSS_CHANNELS;
  shape_.local_size = static_cast<int>(p.local_size());
  shape_.alpha = p.alpha();
  shape_.beta = p.beta();
  // Caffe builds WITHIN_CHANNEL from a Power layer with shift 1, so k plays no part there.
  shape_.k = across_channels_ ? p.k() : 1.f;
  return Status::Ok();
}

Status LRNLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& in = *bottom[0];
  if (in.num_axes() != 4) {
    return Error("needs a 4-D (N, C, H, W) bottom, got shape " + in.ShapeString());
  }
  shape_.batch = in.shape(0);
  shape_.channels = in.shape(1);
  shape_.height = in.shape(2);
  shape_.width = in.shape(3);
  top[0]->ReshapeLike(in);
  // Implementation list: oneDNN, then the reference loops (which keep the scale for backward).
  StatusOr<bool> changed = kernel_.Update(
      engine_, shape_,
      [&] { return onednn::Lrn::Create(shape_, across_channels_, /*training=*/true, scratch_); },
      &engine_report_);
  if (!changed.ok()) return Error(changed.status().message());
  if (!kernel_.fast()) scale_.ReshapeLike(in);
  return Status::Ok();
}

Status LRNLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (onednn::Lrn* fast = kernel_.fast()) {
    fast->Forward(bottom[0]->data(), top[0]->mutable_data());
    return Status::Ok();
  }
  if (across_channels_) {
    reference::LrnAcrossChannelsForward(shape_, bottom[0]->data(), top[0]->mutable_data(),
                                        scale_.mutable_data());
  } else {
    reference::LrnWithinChannelForward(shape_, bottom[0]->data(), top[0]->mutable_data(),
                                       scale_.mutable_data());
  }
  return Status::Ok();
}

void LRNLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                            const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  if (onednn::Lrn* fast = kernel_.fast()) {
    fast->Backward(bottom[0]->data(), top[0]->diff(), bottom[0]->mutable_diff());
  } else if (across_channels_) {
    reference::LrnAcrossChannelsBackward(shape_, bottom[0]->data(), top[0]->data(), scale_.data(),
                                         top[0]->diff(), bottom[0]->mutable_diff());
  } else {
    reference::LrnWithinChannelBackward(shape_, bottom[0]->data(), top[0]->data(), scale_.data(),
                                        top[0]->diff(), bottom[0]->mutable_diff());
  }
}

}  // namespace dtrain
