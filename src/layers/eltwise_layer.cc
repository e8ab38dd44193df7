#include "layers/eltwise_layer.h"

#include <string>

#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status EltwiseLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const EltwiseParameter& p = param_.eltwise_param();
  switch (p.operation()) {
    case EltwiseParameter::PROD:
      problem_.op = kernels::EltwiseOp::kProd;
      break;
    case EltwiseParameter::SUM:
      problem_.op = kernels::EltwiseOp::kSum;
      break;
    case EltwiseParameter::MAX:
      problem_.op = kernels::EltwiseOp::kMax;
      break;
    default:
      return Error("unknown operation " + std::to_string(p.operation()));
  }
  if (p.coeff_size() != 0 && p.coeff_size() != static_cast<int>(bottom.size())) {
    return Error("needs one coeff per bottom (" + std::to_string(bottom.size()) + "), got " +
                 std::to_string(p.coeff_size()));
  }
  if (p.coeff_size() != 0 && p.operation() != EltwiseParameter::SUM) {
    return Error("coeff is only allowed with operation SUM");
  }
  problem_.coeffs.assign(bottom.size(), 1.f);
  for (int i = 0; i < p.coeff_size(); ++i) problem_.coeffs[i] = p.coeff(i);
  problem_.stable_prod_grad = p.stable_prod_grad();
  return Status::Ok();
}

Status EltwiseLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (size_t i = 1; i < bottom.size(); ++i) {
    if (bottom[i]->shape() != bottom[0]->shape()) {
      return Error("all bottoms must have the same shape: bottom[0] is " +
                   bottom[0]->ShapeString() + ", bottom[" + std::to_string(i) + "] is " +
                   bottom[i]->ShapeString());
    }
  }
  top[0]->ReshapeLike(*bottom[0]);
  problem_.count = bottom[0]->count();
  return UpdateKernel(kernel_, problem_);
}

Status EltwiseLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  layout_ = ElementwiseLayout(bottom, false);
  sources_.resize(bottom.size());
  for (size_t i = 0; i < bottom.size(); ++i) sources_[i] = bottom[i]->data_in(layout_);
  kernel_->Forward(sources_, top[0]->data_to(layout_));
  return Status::Ok();
}

void EltwiseLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  // In the forward pass's layout, with every read before the writes (a bottom diff may be the
  // top's, in place).
  sources_.resize(bottom.size());
  for (size_t i = 0; i < bottom.size(); ++i) sources_[i] = bottom[i]->data_in(layout_);
  const float* dst = top[0]->data_in(layout_);
  const float* diff_dst = top[0]->diff_in(layout_);
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (!propagate_down[i]) continue;
    kernel_->Backward(static_cast<int>(i), sources_, dst, diff_dst, bottom[i]->diff_to(layout_));
  }
}

}  // namespace dtrain
