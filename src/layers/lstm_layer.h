// LSTMLayer: Caffe's "LSTM" layer, a long short-term memory over time (RecurrentLayer gives the
// bottoms, tops, state handling and gradients common to LSTM and RNN).
//
// With H = recurrent_param.num_output, for t = 1..T and each stream:
//   [i' f' o' g'] = W_xc x_t + b_c + W_hc (cont_t * h_{t-1}) [+ W_xc_static x_static]   (4H)
//   i = sigmoid(i'), f = sigmoid(f'), o = sigmoid(o'), g = tanh(g')     (Caffe's gate order)
//   c_t = cont_t * f * c_{t-1} + i * g
//   h_t = o * tanh(c_t)
// Bottoms x (T, N, ...), cont (T, N), [x_static (N, ...)], with expose_hidden h_0 and c_0
// (1, N, H). Tops h (T, N, H) = h_1..h_T, with expose_hidden h_T and c_T (1, N, H). Learnable
// blobs in Caffe's order: W_xc (4H x D), b_c (4H), [W_xc_static (4H x Ds)], W_hc (4H x H).
// Backward through time: diffs of x, x_static, h_0 and c_0 (exposed), all parameter diffs
// accumulated; none for cont. The gradient of f' is cont * f (1 - f) times that of f * c_{t-1}
// (Caffe writes f (1 - f) with f already scaled by cont: the same for cont in {0, 1}). The cell
// of each step is layers/lstm_cell.h, shared with LSTMUnit.
#pragma once

#include <vector>

#include "layers/recurrent_layer.h"

namespace dtrain {

class LSTMLayer : public RecurrentLayer {
 public:
  LSTMLayer(const LayerParameter& p, const LayerContext& c) : RecurrentLayer(p, c) {}
  const char* type() const override { return "LSTM"; }

 protected:
  int NumStates() const override { return 2; }
  std::string StateName(int k) const override { return k == 0 ? "h_0" : "c_0"; }
  int GateDim() const override { return 4 * H_; }
  std::vector<BlobSpec> BlobSpecs() const override;
  void ReshapeBuffers() override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  std::vector<float> gates_;     // T x N x 4H: pre-activations, then i f o g after Forward
  std::vector<float> c_;         // (T + 1) x N x H: c_0, c_1, ..., c_T
  std::vector<float> h_conted_;  // T x N x H: cont_t * h_{t-1}
  std::vector<float> dgates_;    // T x N x 4H
  std::vector<float> dh_, dc_, dh_total_, dh_conted_;  // N x H each
};

}  // namespace dtrain
