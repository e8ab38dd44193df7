#include "layers/silence_layer.h"

namespace dtrain {

void SilenceLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                                const TensorVec& bottom) {
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (propagate_down[i]) bottom[i]->SetDiff(0.f);
  }
}

}  // namespace dtrain
