// NeuronLayer: the shared base of Caffe's element-wise layers (AbsVal, BNLL, Clip, ELU, Exp, Log,
// Power, Swish, Threshold): one bottom, one top of the bottom's shape, y[i] a function of x[i].
//
// A subclass supplies two loops over plain float arrays of n elements: ForwardElements (y from x)
// and BackwardElements (dx from x, y and dy). Either loop may be called with its output array
// equal to its input (in place: top == bottom, so y == x in forward and dx == dy in backward), so
// each element must be read before it is written. A layer runs in place unless it says otherwise
// (AllowsInPlace; Caffe's AbsVal refuses, a Status at Setup). In place, the forward's input is
// overwritten by its output; when BackwardElements reads x (BackwardReadsInput), the base copies x
// into a tensor of its own before each forward (sized at Reshape), so that backward sees the true
// input. (Caffe's NeuronLayers read the overwritten bottom instead, which gives wrong gradients
// for e.g. Clip or BNLL run in place.) Not thread-safe.
#pragma once

#include <cstdint>

#include "layers/layer.h"

namespace dtrain {

class NeuronLayer : public Layer {
 public:
  NeuronLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  int ExactNumBottomBlobs() const final { return 1; }
  int ExactNumTopBlobs() const final { return 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) final;

 protected:
  // y[i] = f(x[i]) for i < n; y may be x.
  virtual void ForwardElements(const float* x, float* y, int64_t n) const = 0;
  // dx[i] = dy[i] * f'(x[i]) for i < n, where y[i] = f(x[i]); dx may be dy.
  virtual void BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                int64_t n) const = 0;
  // Whether BackwardElements reads x (false: it reads only y and dy, and x is not kept in place).
  virtual bool BackwardReadsInput() const { return true; }
  // Whether top may be bottom.
  virtual bool AllowsInPlace() const { return true; }

  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) final;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) final;

 private:
  bool KeepsInput(const TensorVec& bottom, const TensorVec& top) const {
    return top[0] == bottom[0] && BackwardReadsInput();
  }

  Tensor input_;  // the forward's input, kept only in place when backward reads it
};

}  // namespace dtrain
