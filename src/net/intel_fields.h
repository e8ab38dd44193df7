// Intel Caffe's net fields, met in one pass over a net's layers (all phases), so that `dtrain
// check`, `train`, `test` and `time` treat them alike:
//  - refused by name with the reason: model parallelism (multinode / mn_activation_param /
//    NetParameter.multinode.model_parallel with more than one model part; dtrain is data-parallel
//    only) and conv_algorithm values Intel Caffe does not have;
//  - accepted and reported, each kind in one log line: int8 quantization_param (computed in fp32),
//    gradient compression (exchanged exact, as Intel Caffe does without its compression library),
//    conv_algorithm "winograd"/"auto" (oneDNN's direct kernel, Intel Caffe's own fallback).
// docs/intel-caffe.md lists each field and its meaning here. Stateless.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

// Ok when no layer sets an Intel field dtrain refuses; else Unsupported listing each, one per
// line after `source`: the layer, the field and why.
Status CheckIntelFields(const NetParameter& net, const std::string& source);

// Whether `net` says it was written for Intel Caffe: it sets a field or value only Intel Caffe has
// (a net or layer engine naming MKL2017 or MKLDNN, a per-type MKL2017/MKLDNN enum, BatchNorm's
// Intel fields, bn_stats_batch_size, the random resizes or pad, data_param.shuffle, int8,
// multinode or conv_algorithm settings, the gabor filler or msra's scale). Where the same text
// means different things in BVLC and Intel Caffe (a BatchNorm with no Scale after it), dtrain
// reads it as Intel's only then.
bool WrittenForIntelCaffe(const NetParameter& net);

// One line for each kind of accepted Intel field the net sets that dtrain does not apply as
// Intel's build could (empty when none): for the log. Gradient compression only when `training`.
std::vector<std::string> IntelFieldNotes(const NetParameter& net, bool training);

}  // namespace dtrain
