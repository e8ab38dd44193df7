// The LSTM cell of one time step, shared by LSTMLayer (every step) and LSTMUnitLayer (one step).
//
// For n streams of H cells, with the 4H pre-activations of each stream in Caffe's gate order
// i, f, o, g: i, f, o = sigmoid, g = tanh, c = cont * f * c_prev + i * g (c_prev dropped when
// cont is 0, even if not finite, as in Caffe), h = o * tanh(c). Row-major: stream n's gates at
// n * 4H, its cells at n * H; cont has one value per stream. Stateless; pure functions.
#pragma once

namespace dtrain {

// acts (4H per stream) receives i, f, o, g and may be `pre` itself; c and h receive the new state.
void LstmCellForward(int n, int H, const float* pre, const float* cont, const float* c_prev,
                     float* acts, float* c, float* h);

// From the total diffs dh and dc of this step's h and c: d(loss)/d(pre) into dpre (4H per
// stream) and d(loss)/d(c_prev) into dc_prev, which may be dc itself. The forget gate's diff is
// exact for any cont: dc * c_prev * cont * f (1 - f).
void LstmCellBackward(int n, int H, const float* acts, const float* cont, const float* c_prev,
                      const float* c, const float* dh, const float* dc, float* dpre,
                      float* dc_prev);

}  // namespace dtrain
