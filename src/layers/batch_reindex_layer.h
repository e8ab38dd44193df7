// BatchReindexLayer: gathers items (rows of axis 0) of its first bottom by index (Caffe's
// BatchReindex), e.g. to permute or resample a batch.
//
// Bottoms: the data (N x ...) and the indices, a 1-axis blob of M values in [0, N) (stored as
// floats; a fraction is dropped, as Caffe's cast to int does). One top of shape M x (the data's
// other axes): item m = data item indices[m]. An index outside [0, N) is an error in Forward.
// Backward: each data item's diff is the sum of the top diffs of the items that copied it (0 for
// items never picked). The indices get no gradient (Caffe refuses to backpropagate to them): a net
// in which they would need one is an error when built. Not in place.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class BatchReindexLayer : public Layer {
 public:
  BatchReindexLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "BatchReindex"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  bool BottomHasGradient(int bottom_index) const override { return bottom_index == 0; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index == 0; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;
};

}  // namespace dtrain
