#include "layers/loss_normalization.h"

#include <algorithm>

namespace dtrain {

float LossNormalizer(LossParameter::NormalizationMode mode, int64_t outer, int64_t inner,
                     int64_t valid_count) {
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
  }
  return static_cast<float>(std::max(1.0, n));
}

}  // namespace dtrain
