#include "layers/reorg_layer.h"

#include <string>

#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ReorgLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const ReorgParameter& p = param_.reorg_param();
  if (!p.has_stride()) return Error("reorg_param.stride is required");
  DT_ASSIGN_OR_RETURN(stride_, Dimension("reorg_param.stride", p.stride()));
  reverse_ = p.reverse();
  return Status::Ok();
}

Status ReorgLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  if (top[0] == bottom[0]) return Error("cannot run in place");
  const Tensor& x = *bottom[0];
  if (x.num_axes() != 4) {
    return Error("the bottom must have 4 axes (N, C, H, W), got " + x.ShapeString());
  }
  for (int k = 0; k < 4; ++k) dims_[k] = x.shape(k);
  const int64_t s = stride_;
  const int64_t blocks = s * s;
  if (dims_[1] % blocks != 0) {
    return Error("the bottom's " + std::to_string(dims_[1]) +
                 " channels are not a multiple of stride^2 = " + std::to_string(blocks) + " (" +
                 x.ShapeString() + ")");
  }
  if (reverse_) {
    DT_ASSIGN_OR_RETURN(int height,
                        Dimension("the top's height (H * stride)", dims_[2] * s, false));
    DT_ASSIGN_OR_RETURN(int width, Dimension("the top's width (W * stride)", dims_[3] * s, false));
    top[0]->Reshape({dims_[0], static_cast<int>(dims_[1] / blocks), height, width});
    return Status::Ok();
  }
  for (int k = 2; k < 4; ++k) {
    if (dims_[k] % s != 0) {
      return Error(std::string("the bottom's ") + (k == 2 ? "height " : "width ") +
                   std::to_string(dims_[k]) + " is not a multiple of reorg_param.stride " +
                   std::to_string(s) + " (" + x.ShapeString() + ")");
    }
  }
  DT_ASSIGN_OR_RETURN(int channels,
                      Dimension("the top's channels (C * stride^2)", dims_[1] * blocks, false));
  top[0]->Reshape(
      {dims_[0], channels, static_cast<int>(dims_[2] / s), static_cast<int>(dims_[3] / s)});
  return Status::Ok();
}

template <typename Move>
void ReorgLayer::ForEachPair(Move move) const {
  const int64_t s = stride_;
  const int64_t channels = dims_[1], height = dims_[2], width = dims_[3];
  const int64_t far_channels = channels / (s * s);  // C', the channels of the (H s, W s) side
  int64_t i = 0;
  for (int64_t n = 0; n < dims_[0]; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t block = c / far_channels;  // which cell of the s x s block
      const int64_t plane = n * far_channels + c % far_channels;
      for (int64_t h = 0; h < height; ++h) {
        const int64_t row = plane * height * s + h * s + block / s;
        for (int64_t w = 0; w < width; ++w, ++i) move(i, row * width * s + w * s + block % s);
      }
    }
  }
}

Status ReorgLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* x = bottom[0]->data();
  float* y = top[0]->mutable_data();
  if (reverse_) {
    ForEachPair([&](int64_t i, int64_t far) { y[far] = x[i]; });
  } else {
    ForEachPair([&](int64_t i, int64_t far) { y[i] = x[far]; });
  }
  return Status::Ok();
}

void ReorgLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                              const TensorVec& bottom) {
  // Intel Caffe's Backward reads a buffer it never writes (its diff_), so it passes zeros; the
  // gradient of a permutation is the inverse permutation, which is what is computed here.
  if (!propagate_down[0]) return;
  const float* dy = top[0]->diff();
  float* dx = bottom[0]->mutable_diff();
  if (reverse_) {
    ForEachPair([&](int64_t i, int64_t far) { dx[i] = dy[far]; });
  } else {
    ForEachPair([&](int64_t i, int64_t far) { dx[far] = dy[i]; });
  }
}

}  // namespace dtrain
