// LSTMUnitLayer: Caffe's "LSTMUnit", one time step of the LSTM cell (layers/lstm_cell.h) on
// pre-computed gate inputs; Caffe's unrolled LSTM is built from it.
//
// Bottoms, in Caffe's order: c_prev (1, N, H), gates (1, N, 4H) in the order i, f, o, g (before
// the nonlinearities), cont (1, N). Tops c (1, N, H) and h (1, N, H):
//   c = cont * sigmoid(f) * c_prev + sigmoid(i) * tanh(g),   h = sigmoid(o) * tanh(c).
// H is read from c_prev's third axis; no parameters, no learnable blobs. Backward writes the
// diffs of c_prev and gates (from both tops' diffs); cont gets none (BottomHasGradient(2) is
// false, as Caffe refuses it). The forget gate's diff is exact for any cont (Caffe's equals it
// for cont in {0, 1}). Not in place. Not thread-safe.
#pragma once

#include <vector>

#include "layers/layer.h"

namespace dtrain {

class LSTMUnitLayer : public Layer {
 public:
  LSTMUnitLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}
  const char* type() const override { return "LSTMUnit"; }
  int ExactNumBottomBlobs() const override { return 3; }
  int ExactNumTopBlobs() const override { return 2; }
  bool BottomHasGradient(int bottom_index) const override { return bottom_index != 2; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index != 2; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

 protected:
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int N_ = 0, H_ = 0;
  std::vector<float> acts_;     // N x 4H: i, f, o, g after the nonlinearities
  std::vector<float> dgates_;   // N x 4H, when the gates' diff is not wanted
  std::vector<float> dc_prev_;  // N x H, when c_prev's diff is not wanted
};

}  // namespace dtrain
