#include "layers/shuffle_channel_layer.h"

#include <algorithm>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ShuffleChannelLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const Tensor& in = *bottom[0];
  if (in.num_axes() < 2) {
    return Error("needs a bottom with a channel axis (N, C, ...), got shape " + in.ShapeString());
  }
  const uint32_t group = param_.shuffle_channel_param().group();
  num_ = in.shape(0);
  channels_ = in.shape(1);
  if (group == 0 || channels_ % static_cast<int64_t>(group) != 0) {
    return Error("shuffle_channel_param.group (" + std::to_string(group) +
                 ") must be positive and divide the channels (" + std::to_string(channels_) + ")");
  }
  group_ = static_cast<int>(group);
  plane_ = in.count(2);
  top[0]->Reshape(in.shape());
  return Status::Ok();
}

void ShuffleChannelLayer::Permute(const float* from, float* to, bool inverse) const {
  const int per_group = channels_ / group_;
  for (int n = 0; n < num_; ++n) {
    const int64_t item = static_cast<int64_t>(n) * channels_ * plane_;
    for (int i = 0; i < group_; ++i) {
      for (int j = 0; j < per_group; ++j) {
        const int64_t source = item + static_cast<int64_t>(i * per_group + j) * plane_;
        const int64_t shuffled = item + static_cast<int64_t>(j * group_ + i) * plane_;
        const float* src = from + (inverse ? shuffled : source);
        std::copy(src, src + plane_, to + (inverse ? source : shuffled));
      }
    }
  }
}

Status ShuffleChannelLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  Permute(bottom[0]->data(), top[0]->mutable_data(), /*inverse=*/false);
  return Status::Ok();
}

void ShuffleChannelLayer::BackwardImpl(const TensorVec& top,
                                       const std::vector<bool>& propagate_down,
                                       const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  Permute(top[0]->diff(), bottom[0]->mutable_diff(), /*inverse=*/true);
}

}  // namespace dtrain
