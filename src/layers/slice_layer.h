// SliceLayer: cuts its bottom into consecutive pieces along one axis, one piece per top.
//
// One bottom; one or more tops. Parameters: slice_param.axis (default 1, negative counts from the
// end) or the legacy slice_dim (not both); slice_point: the len(top) - 1 strictly increasing cut
// positions, or none to cut into equal parts (the axis must divide evenly). With a single top it
// shares the bottom's data and diff. Backward copies each top diff into its piece.
#pragma once

#include "layers/layer.h"

namespace dtrain {

class SliceLayer : public Layer {
 public:
  SliceLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Slice"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int MinTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int axis_ = 1;
  int64_t num_slices_ = 1;  // count(0, axis)
  int64_t inner_ = 1;       // count(axis + 1)
};

}  // namespace dtrain
