#include "layers/lstm_cell.h"

#include <cmath>

namespace dtrain {
namespace {

float Sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

}  // namespace

void LstmCellForward(int n, int H, const float* pre, const float* cont, const float* c_prev,
                     float* acts, float* c, float* h) {
  const int G = 4 * H;
  for (int s = 0; s < n; ++s) {
    const float* a = pre + s * G;
    float* act = acts + s * G;
    const float k = cont[s];
    for (int d = 0; d < H; ++d) {
      const int j = s * H + d;
      const float i = Sigmoid(a[d]);
      const float f = Sigmoid(a[H + d]);
      const float o = Sigmoid(a[2 * H + d]);
      const float g = std::tanh(a[3 * H + d]);
      act[d] = i, act[H + d] = f, act[2 * H + d] = o, act[3 * H + d] = g;
      c[j] = (k == 0.f ? 0.f : k * f * c_prev[j]) + i * g;
      h[j] = o * std::tanh(c[j]);
    }
  }
}

void LstmCellBackward(int n, int H, const float* acts, const float* cont, const float* c_prev,
                      const float* c, const float* dh, const float* dc, float* dpre,
                      float* dc_prev) {
  const int G = 4 * H;
  for (int s = 0; s < n; ++s) {
    const float* act = acts + s * G;
    float* da = dpre + s * G;
    const float k = cont[s];
    for (int d = 0; d < H; ++d) {
      const int j = s * H + d;
      const float i = act[d], f = act[H + d], o = act[2 * H + d], g = act[3 * H + d];
      const float tanh_c = std::tanh(c[j]);
      const float dc_total = dc[j] + dh[j] * o * (1.f - tanh_c * tanh_c);
      da[d] = dc_total * g * i * (1.f - i);
      da[H + d] = k == 0.f ? 0.f : dc_total * c_prev[j] * k * f * (1.f - f);
      da[2 * H + d] = dh[j] * tanh_c * o * (1.f - o);
      da[3 * H + d] = dc_total * i * (1.f - g * g);
      dc_prev[j] = k == 0.f ? 0.f : dc_total * k * f;
    }
  }
}

}  // namespace dtrain
