// Engine: the names of the implementations an op's list may hold (kernels/kernel_list.h).
//
// kAny lets the list choose; any other engine restricts it to that engine's implementation.
// Names are parsed case-insensitively with Intel Caffe's and BVLC Caffe's spellings as aliases.
// Stateless.
#pragma once

#include <string>

#include "core/status.h"

namespace dtrain {

enum class Engine { kAny, kOnednn, kReference };

// "" or "ANY" -> kAny; "ONEDNN"/"MKLDNN"/"MKL2017" -> kOnednn; "REFERENCE"/"CAFFE" -> kReference.
// Case-insensitive; Intel Caffe's "MKLDNN:CPU" (sub-engines after a colon, CPU the only one) is
// kOnednn. Anything else (CUDNN, Intel's FPGA and DLA sub-engines) is an error naming it.
StatusOr<Engine> ParseEngine(const std::string& name);
// "ANY", "ONEDNN", "REFERENCE".
const char* EngineName(Engine engine);

}  // namespace dtrain
