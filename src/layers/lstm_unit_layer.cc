#include "layers/lstm_unit_layer.h"

#include <string>

#include "layers/lstm_cell.h"

namespace dtrain {

Status LSTMUnitLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (const Tensor* t : top) {
    for (const Tensor* b : bottom) {
      if (t == b) return Error("cannot run in place");
    }
  }
  const Tensor& c_prev = *bottom[0];
  if (c_prev.num_axes() != 3 || c_prev.shape(0) != 1) {
    return Error("c_prev (bottom 0) must have shape (1, N, H), got " + c_prev.ShapeString());
  }
  const int n = c_prev.shape(1), h = c_prev.shape(2);
  const std::vector<int> gates_shape{1, n, 4 * h}, cont_shape{1, n};
  if (bottom[1]->shape() != gates_shape) {
    return Error("gates (bottom 1) must have shape (1, N, 4H) = " + ShapeToString(gates_shape) +
                 " for c_prev (bottom 0) shape " + c_prev.ShapeString() + ", got " +
                 bottom[1]->ShapeString());
  }
  if (bottom[2]->shape() != cont_shape) {
    return Error("cont (bottom 2) must have shape (1, N) = " + ShapeToString(cont_shape) +
                 " for c_prev (bottom 0) shape " + c_prev.ShapeString() + ", got " +
                 bottom[2]->ShapeString());
  }
  N_ = n;
  H_ = h;
  top[0]->Reshape(c_prev.shape());
  top[1]->Reshape(c_prev.shape());
  acts_.resize(static_cast<size_t>(n) * 4 * h);
  dgates_.resize(acts_.size());
  dc_prev_.resize(static_cast<size_t>(n) * h);
  return Status::Ok();
}

Status LSTMUnitLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  LstmCellForward(N_, H_, bottom[1]->data(), bottom[2]->data(), bottom[0]->data(), acts_.data(),
                  top[0]->mutable_data(), top[1]->mutable_data());
  return Status::Ok();
}

void LSTMUnitLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                 const TensorVec& bottom) {
  if (!propagate_down[0] && !propagate_down[1]) return;
  float* dgates = bottom[1]->mutable_diff();
  float* dc_prev = bottom[0]->mutable_diff();
  // Only the diffs asked for are written; the other goes to scratch.
  if (!propagate_down[1]) dgates = dgates_.data();
  if (!propagate_down[0]) dc_prev = dc_prev_.data();
  LstmCellBackward(N_, H_, acts_.data(), bottom[2]->data(), bottom[0]->data(), top[0]->data(),
                   top[1]->diff(), top[0]->diff(), dgates, dc_prev);
}

}  // namespace dtrain
