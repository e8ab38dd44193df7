// RNNLayer: Caffe's "RNN" layer, a simple (Elman) recurrent net with a tanh output layer
// (RecurrentLayer gives the bottoms, tops, state handling and gradients common to RNN and LSTM).
//
// With H = recurrent_param.num_output, for t = 1..T and each stream:
//   h_t = tanh(W_hh (cont_t * h_{t-1}) + W_xh x_t + b_h [+ W_xh_static x_static])
//   o_t = tanh(W_ho h_t + b_o)
// Bottoms x (T, N, ...), cont (T, N), [x_static (N, ...)], with expose_hidden h_0 (1, N, H).
// Tops o (T, N, H) = o_1..o_T, with expose_hidden h_T (1, N, H). Learnable blobs in Caffe's
// order: W_xh (H x D), b_h (H), [W_xh_static (H x Ds)], W_hh (H x H), W_ho (H x H), b_o (H).
// Backward through time: diffs of x, x_static and h_0 (exposed), all parameter diffs
// accumulated; none for cont.
#pragma once

#include <vector>

#include "layers/recurrent_layer.h"

namespace dtrain {

class RNNLayer : public RecurrentLayer {
 public:
  RNNLayer(const LayerParameter& p, const LayerContext& c) : RecurrentLayer(p, c) {}
  const char* type() const override { return "RNN"; }

 protected:
  int NumStates() const override { return 1; }
  std::string StateName(int k) const override { return "h_0"; }
  int GateDim() const override { return H_; }
  std::vector<BlobSpec> BlobSpecs() const override;
  void ReshapeBuffers() override;
  double ExtraMacs() const override { return static_cast<double>(T_) * N_ * H_ * H_; }
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  int output_blob() const { return recurrent_blob() + 1; }  // W_ho; b_o follows

  std::vector<float> h_;               // T x N x H: pre-activations, then h_1..h_T after Forward
  std::vector<float> h_conted_;        // T x N x H: cont_t * h_{t-1}
  std::vector<float> do_;              // T x N x H: diff of o's pre-activation
  std::vector<float> dh_out_;          // T x N x H: diff of h_t through the output layer
  std::vector<float> dpre_;            // T x N x H: diff of h_t's pre-activation
  std::vector<float> dh_, dh_conted_;  // N x H each
};

}  // namespace dtrain
