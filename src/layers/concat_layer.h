// ConcatLayer: joins its bottoms along one axis.
//
// Bottoms: one or more, with the same number of axes and equal dims except along the concat axis.
// Top: their concatenation, in bottom order. Parameters: concat_param.axis (default 1, negative
// counts from the end) or the legacy concat_dim (not both). With a single bottom the top shares its
// data and diff. Backward copies each bottom's slice of the top diff back. Implementations, in
// order: oneDNN (kernels/onednn/concat.h), then plain copies.
#pragma once

#include "kernels/onednn/concat.h"
#include "layers/layer.h"

namespace dtrain {

class ConcatLayer : public Layer {
 public:
  ConcatLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Concat"; }
  int MinBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int axis_ = 1;
  int64_t num_concats_ = 1;  // count(0, axis)
  int64_t inner_ = 1;        // count(axis + 1)
  onednn::ConcatProblem problem_;
  KernelChoice<onednn::Concat, onednn::ConcatProblem> kernel_;
  std::vector<const float*> sources_;  // bottom data pointers, for the oneDNN kernel
};

}  // namespace dtrain
