#include "layers/parameter_layer.h"

#include <algorithm>
#include <climits>
#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status ParameterLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const BlobShape& shape = param_.parameter_param().shape();
  StatusOr<std::vector<int>> dims_given = ShapeFromProto(shape);
  if (!dims_given.ok()) return Error("parameter_param.shape: " + dims_given.status().message());
  dims_ = *dims_given;
  const std::vector<int>& dims = dims_;
  if (!blobs_.empty()) {
    if (blobs_.size() != 1 || blobs_[0]->shape() != dims) {
      return Error("expected one learnable blob of shape " + ShapeToString(dims));
    }
    return Status::Ok();
  }
  blobs_.push_back(std::make_shared<Tensor>(dims));  // zero-filled
  return Status::Ok();
}

Status ParameterLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->Reshape(dims_);
  return Status::Ok();
}

Status ParameterLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  const float* w = blobs_[0]->data();
  std::copy(w, w + blobs_[0]->count(), top[0]->mutable_data());
  return Status::Ok();
}

void ParameterLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                  const TensorVec& bottom) {
  if (!param_propagate_down(0)) return;
  const float* dy = top[0]->diff();
  float* dw = blobs_[0]->mutable_diff();
  for (int64_t i = 0; i < blobs_[0]->count(); ++i) dw[i] += dy[i];
}

}  // namespace dtrain
