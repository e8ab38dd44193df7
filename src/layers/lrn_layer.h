// LRN: Caffe's "LRN" layer, local response normalisation.
//
//   bottom (N, C, H, W) -> top (N, C, H, W),   top = bottom * scale^-beta, where
//   ACROSS_CHANNELS:  scale = k + alpha / local_size * sum of bottom^2 over local_size channels
//   WITHIN_CHANNEL:   scale = 1 + alpha / local_size^2 * sum of bottom^2 over a local_size^2 square
//
// Windows are centred and zero-padded. Parameters: local_size (odd, default 5), alpha (1), beta
// (0.75), k (1; as in Caffe, WITHIN_CHANNEL ignores it and uses 1), norm_region. No learnable
// parameters. Computed by the LRN op's kernel (kernels/lrn.h). Not thread-safe.
#pragma once

#include "kernels/lrn.h"
#include "layers/layer.h"

namespace dtrain {

class LRNLayer : public Layer {
 public:
  LRNLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "LRN"; }

  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::LrnProblem problem_;  // parameters set up once; shape per Reshape
  kernels::KernelChoice<kernels::UnaryKernel, kernels::LrnProblem> kernel_;
};

}  // namespace dtrain
