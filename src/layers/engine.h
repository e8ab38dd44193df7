// Which engine a layer asks for: the precedence of the places a model file or a command names it.
//
// In order: the --engine flag (forces every layer), the per-type enum (Caffe's `engine: CAFFE` =
// reference, Intel Caffe's MKL2017 / MKLDNN = oneDNN; it beats the layer's string, as in Intel
// Caffe's layer factory), the layer's own `engine` field, the net's `engine` field (which a
// solver's `engine` replaces). The layer parses the name
// (kernels/engine.h) and hands the engine to its op's implementation list (kernels/kernel_list.h),
// which makes the choice and the report verbose mode prints. Stateless.
#pragma once

#include <string>

#include "core/proto_forward.h"
#include "kernels/engine.h"

namespace dtrain {

// The engine name a layer asks for (see the precedence above); `forced` is the --engine flag.
std::string ResolveEngineName(const LayerParameter& layer, const std::string& net_default,
                              const std::string& forced);

}  // namespace dtrain
