#include "layers/lrn_layer.h"

#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status LRNLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const LRNParameter& p = param_.lrn_param();
  if (p.local_size() == 0 || p.local_size() % 2 == 0) {
    return Error("local_size must be odd, got " + std::to_string(p.local_size()));
  }
  problem_.across_channels = p.norm_region() == LRNParameter::ACROSS_CHANNELS;
  kernels::LrnShape& shape = problem_.shape;
  shape.local_size = static_cast<int>(p.local_size());
  shape.alpha = p.alpha();
  shape.beta = p.beta();
  // Caffe builds WITHIN_CHANNEL from a Power layer with shift 1, so k plays no part there.
  shape.k = problem_.across_channels ? p.k() : 1.f;
  return Status::Ok();
}

Status LRNLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& in = *bottom[0];
  if (in.num_axes() != 4) {
    return Error("needs a 4-D (N, C, H, W) bottom, got shape " + in.ShapeString());
  }
  kernels::LrnShape& shape = problem_.shape;
  shape.batch = in.shape(0);
  shape.channels = in.shape(1);
  shape.height = in.shape(2);
  shape.width = in.shape(3);
  top[0]->ReshapeLike(in);
  return UpdateKernel(kernel_, problem_);
}

Status LRNLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  kernel_->Forward(bottom[0]->data(), top[0]->mutable_data());
  return Status::Ok();
}

void LRNLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                            const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  kernel_->Backward(bottom[0]->data(), top[0]->data(), top[0]->diff(), bottom[0]->mutable_diff());
}

}  // namespace dtrain
