#include "layers/softmax_with_loss_ohem_layer.h"

#include <sstream>
#include <string>

#include "proto/net.pb.h"

namespace dtrain {

Status SoftmaxWithLossOHEMLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  if (param_.loss_weight_size() > 2 && param_.loss_weight(2) != 0.f) {
    std::ostringstream weight;
    weight << param_.loss_weight(2);
    return Error("loss_weight of the per-ROI loss (top 2) must be 0, got " + weight.str() +
                 ": it gets no gradient (Intel Caffe's backward ignores it)");
  }
  return SoftmaxWithLossLayer::LayerSetUp(bottom, top);
}

Status SoftmaxWithLossOHEMLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  DT_RETURN_IF_ERROR(SoftmaxWithLossLayer::Reshape(bottom, top));
  if (top.size() > 2) top[2]->ReshapeLike(*bottom[1]);
  return Status::Ok();
}

Status SoftmaxWithLossOHEMLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  return ForwardLoss(bottom, top, top.size() > 2 ? top[2]->mutable_data() : nullptr);
}

}  // namespace dtrain
