// AxpyLayer: SENet's fused channel scale and residual sum (the Axpy of the SENet ports, as Intel
// Caffe carries it): top = a * x + y, a broadcast over the spatial positions.
//
// Bottoms: a (N, C), or (N, C) followed by axes of 1 such as Caffe's (N, C, 1, 1); x (N, C, ...)
// with at least 2 axes; y of x's shape. Top: x's shape, top[n, c, i] = a[n, c] x[n, c, i] +
// y[n, c, i]. No parameters. In place only on y (top named like the third bottom). Backward: da[n,
// c] = sum over i of dtop x, dx = a dtop, dy = dtop, each where propagate_down asks for it.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class AxpyLayer : public Layer {
 public:
  AxpyLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "Axpy"; }
  int ExactNumBottomBlobs() const override { return 3; }
  int ExactNumTopBlobs() const override { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int64_t scales_ = 0;   // N C, the values of a
  int64_t spatial_ = 0;  // x.count(2), the positions each scale multiplies
};

}  // namespace dtrain
