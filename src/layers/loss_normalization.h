// Loss normalization: what a loss layer divides its summed loss (and gradient) by, from Caffe's
// LossParameter.normalization, shared by the loss layers that read it (InfogainLoss,
// SigmoidCrossEntropyLoss, SoftmaxWithLoss).
//
//   FULL: outer * inner (every location, ignored ones included)
//   VALID: the locations whose label is not loss_param.ignore_label
//   BATCH_SIZE: outer
//   NONE: 1
//   PRE_FIXED: loss_param.pre_fixed_normalizer (Intel Caffe's, from R-FCN)
// The result is at least 1, so a batch whose labels are all ignored gives loss 0, not NaN.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>

#include "proto/layer_params.pb.h"

namespace dtrain {

float LossNormalizer(LossParameter::NormalizationMode mode, int64_t outer, int64_t inner,
                     int64_t valid_count, float pre_fixed = 1);

}  // namespace dtrain
