#include "kernels/window.h"

namespace dtrain::kernels {

int ConvOutputSize(int in, int kernel, int pad, int stride, int dilation) {
  const int dilated = dilation * (kernel - 1) + 1;
  const int span = in + 2 * pad - dilated;
  return span < 0 ? 0 : span / stride + 1;
}

}  // namespace dtrain::kernels
