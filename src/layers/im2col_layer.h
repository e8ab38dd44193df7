// Im2colLayer: Caffe's "Im2col", the convolution lowering as a layer of its own.
//
// One bottom (N, C, H, W), one top (N, C * kernel_h * kernel_w, out_h, out_w): for each window
// position, the C x kernel_h x kernel_w values it covers (padding reads 0), in im2col's order
// (kernels/reference/im2col.h). Parameters: convolution_param's kernel_size / stride / pad /
// dilation in any of their forms (num_output and the fillers are not used). out_h and out_w as
// Convolution computes them. Backward: col2im, summing every copy back into its pixel.
#pragma once

#include "kernels/window.h"
#include "layers/layer.h"

namespace dtrain {

class Im2colLayer : public Layer {
 public:
  Im2colLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Im2col"; }
  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  kernels::Window2d window_;
  int channels_ = 0, height_ = 0, width_ = 0;
};

}  // namespace dtrain
