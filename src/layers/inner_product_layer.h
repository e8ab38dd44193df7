// InnerProduct: Caffe's "InnerProduct" layer (fully connected).
//
//   bottom (d0, ..., d_{axis-1}, d_axis, ...) -> top (d0, ..., d_{axis-1}, num_output)
//
// Axes before `axis` (default 1) are the batch (M rows); the axes from `axis` on are flattened
// into K inputs. top = bottom * W^T + bias, with weights W of shape (num_output, K), or (K,
// num_output) when `transpose` is set, and bias (num_output) when bias_term. Parameters:
// num_output, bias_term, weight_filler, bias_filler, axis, transpose. K is fixed at setup: later
// bottoms may change the batch axes only. Computed by the InnerProduct op's kernel
// (kernels/inner_product.h). Not thread-safe.
#pragma once

#include "kernels/inner_product.h"
#include "layers/layer.h"

namespace dtrain {

class InnerProductLayer : public Layer {
 public:
  InnerProductLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "InnerProduct"; }

  int ExactNumBottomBlobs() const override { return 1; }
  int ExactNumTopBlobs() const override { return 1; }

  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  double ForwardMacs() const override {
    return static_cast<double>(shape_.m) * shape_.n * shape_.k;
  }

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  Status CheckAxis(const Tensor& bottom, int* axis) const;

  bool bias_term_ = true;
  kernels::InnerProductShape shape_;
  kernels::KernelChoice<kernels::LinearKernel, kernels::InnerProductProblem> kernel_;
};

}  // namespace dtrain
