// Which BatchNorm layers of a net learn a scale and shift of their own, decided as Intel Caffe
// (its default build, whose net engine is MKLDNN when the file names none) decides it for a net
// written for Intel Caffe (WrittenForIntelCaffe, net/intel_fields.h), and as BVLC Caffe (none)
// for any other, and the net's parameters rewritten so that each BatchNorm layer
// (layers/batch_norm_layer.h) does it.
//
// Intel Caffe's layer factory (src/caffe/layer_factory.cpp, GetBatchNormLayer) runs a BatchNorm
// on its CAFFE engine (BVLC's layer: 3 blobs, no scale) when batch_norm_param.engine is CAFFE, or
// is DEFAULT and the layer's engine string (else the net's) names CAFFE; otherwise on MKLDNN (or
// MKL2017), whose layers learn gamma and beta (blobs 3 and 4) when use_weight_bias (default
// true). Its compile pass (src/caffe/net.cpp, CompilationRuleRemoveScale, both phases) first
// merges a Scale with one bottom that is the first consumer of such a BatchNorm's top into it:
// the Scale's blobs become the BatchNorm's gamma and beta, but are initialised by the BatchNorm's
// filler and bias_filler. dtrain keeps that Scale as a layer of its own (the same computation and
// parameters) and the BatchNorm without a scale, and passes the BatchNorm's filler and
// bias_filler on to the Scale where the BatchNorm sets them (the ResNet-50 recipes' zero gamma).
//
// The decision is written into each BatchNorm's use_weight_bias (set explicitly true or false).
// NetParameter.bn_stats_batch_size replaces every BatchNorm's stats_batch_size, as Intel's
// ApplyBnStatsBatchSize (src/caffe/util/apply_bn_stats_batch_size.cpp) does. relu: true on a
// BatchNorm that Intel runs on its CAFFE engine (which ignores it) is refused.
// Pure function over protobuf values.
#pragma once

#include <map>
#include <string>

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

struct IntelBatchNormPlan {
  NetParameter param;   // the net, each BatchNorm's decision written in
  int own = 0;          // learn gamma (and beta) of their own
  int in_scale = 0;     // leave them to the Scale after them (the one Intel merges)
  int caffe = 0;        // on Intel's CAFFE engine: none
  int disabled = 0;     // use_weight_bias: false: none
  int sub_batches = 0;  // with stats_batch_size (after bn_stats_batch_size)
  bool intel = false;   // the net is Intel Caffe's (net/intel_fields.h, WrittenForIntelCaffe)
  int bvlc_without_scale = 0;  // BVLC's BatchNorm with no Scale after it (Intel's would learn)
  // BatchNorm name -> the Scale Intel Caffe merges into it (whose blobs an Intel-written
  // .caffemodel stores as the BatchNorm's blobs 3 and 4).
  std::map<std::string, std::string> merged_scale;
  // The one log line: how many BatchNorm layers learn a scale and shift, and why; "" with none.
  std::string Summary() const;
};

// `net`: filtered for a phase, splits inserted (Intel compiles after both).
StatusOr<IntelBatchNormPlan> PlanIntelBatchNorm(const NetParameter& net);

}  // namespace dtrain
