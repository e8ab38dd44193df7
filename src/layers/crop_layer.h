// CropLayer: cuts a window out of bottom 0 the size of bottom 1 (Caffe's Crop, as FCN uses it to
// bring an upsampled score map back to the input's size).
//
// Bottoms: the data (any number of axes) and a reference blob whose values are never read, only
// its shape; it needs at least as many axes as the data. One top: bottom 0's shape on axes before
// crop_param.axis (default 2; negative counts from the end), bottom 1's shape from it on.
// crop_param.offset: none (every cropped axis starts at 0), one (the same start on every cropped
// axis) or one per cropped axis; the window must fit inside bottom 0. Errors name the field and
// the shapes. Backward: bottom 0's diff is the top diff inside the window and 0 outside it;
// bottom 1 gets a zero diff when asked (the top does not depend on its values; Caffe leaves it
// unwritten, which its nets read as zero). Not in place.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class CropLayer : public Layer {
 public:
  CropLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Crop"; }
  int ExactNumBottomBlobs() const override { return 2; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  // Calls copy(bottom_offset, top_offset) once per contiguous run of the last axis.
  template <typename Copy>
  void ForEachRow(const Tensor& bottom, const Tensor& top, Copy copy) const;

  std::vector<int> offsets_;  // start of the window on every axis of bottom 0
};

}  // namespace dtrain
