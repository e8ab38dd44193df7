// Fillers: initial values for learnable parameters, as Caffe's FillerParameter describes them:
// constant, uniform, gaussian (with optional sparse), xavier, msra (times Intel Caffe's `scale`),
// bilinear, positive_unitball, and Intel Caffe's fixed "gabor" filters (core/gabor_filler.h).
// Fan-in/fan-out for xavier/msra follow Caffe: fan_in = count / shape(0), fan_out = count /
// shape(1), with variance_norm FAN_IN (default), FAN_OUT or AVERAGE.
// Stateless; draws from the Rng it is given.
#pragma once

#include <string>

#include "core/rng.h"
#include "core/status.h"
#include "core/tensor.h"

namespace dtrain {

class FillerParameter;

// Checks the filler type is one dtrain knows (errors list the known ones).
Status ValidateFiller(const FillerParameter& param);
// Fills tensor.data according to param. The type must have passed ValidateFiller; an error when
// the tensor's shape is one the filler cannot fill (gabor's four shapes).
[[nodiscard]] Status Fill(const FillerParameter& param, Rng& rng, Tensor* tensor);

}  // namespace dtrain
