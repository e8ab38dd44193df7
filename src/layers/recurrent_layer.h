// RecurrentLayer: what Caffe's LSTM and RNN layers share (Caffe's RecurrentLayer), computed
// directly as a loop over time rather than through an unrolled inner net.
//
// Bottoms, in Caffe's order: x (T, N, ...) time-major, T time steps of N independent streams,
// D = count of the axes from 2 on (1 when x has two axes); cont (T, N), the sequence-continuation
// indicators (0 where a sequence starts: the state from the step before is multiplied by cont, so
// 0 clears it); optionally x_static (N, ...), Ds = count of its axes from 1 on, an input that
// every time step sees; and, with recurrent_param.expose_hidden, one initial-state bottom per
// state (StateName: h_0, and c_0 for LSTM) of shape (1, N, num_output). Tops: the output
// (T, N, num_output), then with expose_hidden one final state per state (h_T, c_T), (1, N,
// num_output). T and D (and Ds) are fixed at setup; N may change.
//
// The pre-activation of each time step is
//   a_t = W_x x_t + b + W_rec (cont_t * h_{t-1}) [+ W_static x_static]
// of G = GateDim() values per stream; the derived layer turns it into the new state. Learnable
// blobs in Caffe's order (that of the unrolled net's parameters, which .caffemodel files keep):
// W_x (G x D), b (G), [W_static (G x Ds), only with x_static], W_rec (G x num_output), then the
// derived layer's own (BlobSpecs). Weights are filled by recurrent_param.weight_filler, biases by
// bias_filler. debug_info (Caffe's logging of the inner net) is accepted and has no effect.
//
// Initial state, as in Caffe: with expose_hidden, the h_0 (c_0) bottoms. Without it, the final
// state of the previous Forward call (zeros before the first, and after N changes), so that a
// long sequence can be fed in pieces (truncated backpropagation through time); cont = 0 at a
// sequence's first step makes the carried state irrelevant. No gradient flows into a carried
// state from the next call.
//
// Backward through time gives the diffs of x and x_static and accumulates every parameter diff.
// With expose_hidden it also takes the diffs of the h_T (c_T) tops and writes the diffs of the
// h_0 (c_0) bottoms; Caffe's unrolled net ignores the first and never writes the second (its
// Backward leaves those bottoms' diffs untouched), so here a net that feeds one recurrent layer's
// final state into another trains through that link where Caffe would not. cont gets no gradient
// (BottomHasGradient(1) is false; Caffe refuses it too): a net in which cont would need one is an
// error when built. Not in place. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

class RecurrentLayer : public Layer {
 public:
  RecurrentLayer(const LayerParameter& p, const LayerContext& c);

  int MinBottomBlobs() const override { return 2 + (expose_hidden_ ? NumStates() : 0); }
  int MaxBottomBlobs() const override { return MinBottomBlobs() + 1; }
  int ExactNumTopBlobs() const override { return 1 + (expose_hidden_ ? NumStates() : 0); }
  bool BottomHasGradient(int bottom_index) const override { return bottom_index != 1; }
  bool AllowForceBackward(int bottom_index) const override { return bottom_index != 1; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  double ForwardMacs() const override;

 protected:
  // A learnable blob: its name in Caffe's unrolled net, shape, and whether it is a bias.
  struct BlobSpec {
    std::string name;
    std::vector<int> shape;
    bool bias = false;
  };

  // Number of recurrent states (LSTM: h and c; RNN: h), their names at time 0, and G.
  virtual int NumStates() const = 0;
  virtual std::string StateName(int k) const = 0;
  virtual int GateDim() const = 0;
  // Every learnable blob in Caffe's order; the first 3 or 4 as described above.
  virtual std::vector<BlobSpec> BlobSpecs() const = 0;
  // Sizes the derived layer's buffers for the current T_, N_.
  virtual void ReshapeBuffers() = 0;
  // Multiply-adds beyond the pre-activations' (RNN's output transform).
  virtual double ExtraMacs() const { return 0; }

  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;

  // Indices of the blobs shared by both layers.
  int static_blob() const { return 2; }
  int recurrent_blob() const { return static_input_ ? 3 : 2; }
  // Where state k's initial value comes from (bottom or carried state), (N, num_output).
  const float* InitialState(const TensorVec& bottom, int k) const;
  // Records state k's final value: into its top with expose_hidden, else as the next call's start.
  void SaveFinalState(const float* state, int k, const TensorVec& top);
  // The diff of state k's final value from its top (exposed), or null (carried: no gradient).
  const float* FinalStateDiff(const TensorVec& top, int k) const;
  // Writes state k's initial-value diff to its bottom when exposed and asked for.
  void SetInitialStateDiff(const float* diff, int k, const std::vector<bool>& propagate_down,
                           const TensorVec& bottom) const;

  // a = W_x x + b [+ W_static x_static] for all T * N rows (G values each), into `pre`.
  void InputTransform(const TensorVec& bottom, float* pre);
  // out (N x H) = cont_t * h (N x H), row by row.
  void ContScale(const float* cont_t, const float* h, float* out) const;
  // Given d(loss)/d(a) for all T * N rows and the cont-scaled previous states (T * N x H):
  // accumulates the diffs of W_x, b, W_static, W_rec and writes those of x and x_static.
  void InputBackward(const float* dpre, const float* h_conted,
                     const std::vector<bool>& propagate_down, const TensorVec& bottom);

  bool expose_hidden_ = false;
  bool static_input_ = false;
  int H_ = 0;   // num_output
  int T_ = 0;   // time steps
  int N_ = 0;   // streams
  int D_ = 0;   // inputs per step and stream
  int Ds_ = 0;  // static inputs per stream (0 without x_static)

 private:
  Status CheckShapes(const TensorVec& bottom) const;

  std::vector<std::vector<float>> carried_;  // per state, N_ x H_ (without expose_hidden)
  std::vector<float> static_pre_, dstatic_;  // N_ x G
};

}  // namespace dtrain
