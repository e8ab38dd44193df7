#include "layers/loss_normalization.h"

#include <algorithm>

namespace dtrain {

float LossNormalizer(LossParameter::NormalizationMode mode, int64_t outer, int64_t inner,
                     int64_t valid_count, float pre_fixed) {
  double n = 1;
  switch (mode) {
    case LossParameter::FULL:
      n = static_cast<double>(outer * inner);
      break;
    case LossParameter::VALID:
      n = static_cast<double>(valid_count);
      break;
    case LossParameter::BATCH_SIZE:
      n = static_cast<double>(outer);
      break;
    case LossParameter::NONE:
      n = 1;
      break;
    case LossParameter::PRE_FIXED:
      n = pre_fixed;
      break;
  }
  // A batch whose labels are all ignored gives loss 0, not NaN.
  return static_cast<float>(std::max(1.0, n));
}

}  // namespace dtrain
