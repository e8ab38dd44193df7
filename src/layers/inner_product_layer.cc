#include "layers/inner_product_layer.h"

#include <string>

#include "core/filler.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

Status InnerProductLayer::CheckAxis(const Tensor& bottom, int* axis) const {
  const int a = param_.inner_product_param().axis();
  if (a < -bottom.num_axes() || a >= bottom.num_axes()) {
    return Error("axis " + std::to_string(a) + " is out of range for bottom shape " +
                 bottom.ShapeString());
  }
  *axis = bottom.CanonicalAxisIndex(a);
  return Status::Ok();
}

Status InnerProductLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const InnerProductParameter& p = param_.inner_product_param();
  if (p.num_output() == 0) return Error("num_output must be positive");
  int axis = 0;
  DT_RETURN_IF_ERROR(CheckAxis(*bottom[0], &axis));
  bias_term_ = p.bias_term();
  DT_ASSIGN_OR_RETURN(shape_.n, Dimension("inner_product_param.num_output", p.num_output()));
  shape_.k = static_cast<int>(bottom[0]->count(axis));
  shape_.transposed = p.transpose();

  const std::vector<int> weight_shape = shape_.transposed ? std::vector<int>{shape_.k, shape_.n}
                                                          : std::vector<int>{shape_.n, shape_.k};
  const int expected_blobs = bias_term_ ? 2 : 1;
  if (!blobs_.empty()) {
    if (static_cast<int>(blobs_.size()) != expected_blobs) {
      return Error("expected " + std::to_string(expected_blobs) + " learnable blob(s), got " +
                   std::to_string(blobs_.size()));
    }
    if (blobs_[0]->shape() != weight_shape) {
      return Error("incorrect weight shape: expected " + ShapeToString(weight_shape) + ", got " +
                   blobs_[0]->ShapeString());
    }
    if (bias_term_ && blobs_[1]->shape() != std::vector<int>{shape_.n}) {
      return Error("incorrect bias shape: expected " + ShapeToString({shape_.n}) + ", got " +
                   blobs_[1]->ShapeString());
    }
    return Status::Ok();
  }
  for (const auto& [filler, what] : {std::pair{&p.weight_filler(), "weight_filler"},
                                     std::pair{&p.bias_filler(), "bias_filler"}}) {
    Status valid = ValidateFiller(*filler);
    if (!valid.ok())
      return Status(valid.code(), Error(std::string(what) + ": " + valid.message()).message());
  }
  blobs_.push_back(std::make_shared<Tensor>(weight_shape));
  DT_RETURN_IF_ERROR(Fill(p.weight_filler(), rng_, blobs_[0].get()));
  if (bias_term_) {
    blobs_.push_back(std::make_shared<Tensor>(std::vector<int>{shape_.n}));
    DT_RETURN_IF_ERROR(Fill(p.bias_filler(), rng_, blobs_[1].get()));
  }
  return Status::Ok();
}

Status InnerProductLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& in = *bottom[0];
  int axis = 0;
  DT_RETURN_IF_ERROR(CheckAxis(in, &axis));
  if (in.count(axis) != shape_.k) {
    return Error("bottom shape " + in.ShapeString() + " has " + std::to_string(in.count(axis)) +
                 " inputs from axis " + std::to_string(axis) + " on, but the weights expect " +
                 std::to_string(shape_.k) + " (weight shape " + blobs_[0]->ShapeString() + ")");
  }
  shape_.m = static_cast<int>(in.count(0, axis));
  std::vector<int> top_shape(in.shape().begin(), in.shape().begin() + axis);
  top_shape.push_back(shape_.n);
  top[0]->Reshape(top_shape);
  return UpdateKernel(kernel_, kernels::InnerProductProblem{shape_, bias_term_});
}

Status InnerProductLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  kernel_->Forward(bottom[0]->data(), blobs_[0]->data(), bias_term_ ? blobs_[1]->data() : nullptr,
                   top[0]->mutable_data());
  return Status::Ok();
}

void InnerProductLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                     const TensorVec& bottom) {
  kernel_->Backward(bottom[0]->data(), top[0]->diff(), blobs_[0]->data(),
                    propagate_down[0] ? bottom[0]->mutable_diff() : nullptr,
                    param_propagate_down(0) ? blobs_[0]->mutable_diff() : nullptr,
                    bias_term_ && param_propagate_down(1) ? blobs_[1]->mutable_diff() : nullptr);
}

}  // namespace dtrain
