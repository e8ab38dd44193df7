#include "layers/threshold_layer.h"

#include "core/check.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

void ThresholdLayer::ForwardElements(const float* x, float* y, int64_t n) const {
  const float threshold = param_.threshold_param().threshold();
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > threshold ? 1.f : 0.f;
}

void ThresholdLayer::BackwardElements(const float* x, const float* y, const float* dy, float* dx,
                                      int64_t n) const {
  // The net never asks (it refuses such a net when it is built; see the header).
  DT_CHECK(!"Threshold has no gradient");
}

}  // namespace dtrain
