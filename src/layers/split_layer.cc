#include "layers/split_layer.h"

#include <string>

namespace dtrain {

Status SplitLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (size_t i = 0; i < top.size(); ++i) {
    if (top[i] == bottom[0]) return Error("cannot run in place (top " + std::to_string(i) + ")");
    top[i]->ReshapeLike(*bottom[0]);
    top[i]->ShareData(*bottom[0]);
  }
  return UpdateKernel(sum_, kernels::EltwiseProblem{bottom[0]->count(), kernels::EltwiseOp::kSum,
                                                    std::vector<float>(top.size(), 1.f)});
}

Status SplitLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  // Tops already share the bottom's data (Reshape).
  return Status::Ok();
}

void SplitLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                              const TensorVec& bottom) {
  if (!propagate_down[0]) return;
  const LayoutPtr layout = ElementwiseLayout(top, true);
  top_diffs_.clear();
  for (const Tensor* t : top) top_diffs_.push_back(t->diff_in(layout));
  sum_->Forward(top_diffs_, bottom[0]->diff_to(layout));
}

}  // namespace dtrain
