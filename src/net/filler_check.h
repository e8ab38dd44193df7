// One pass over a net's layers, all phases, that checks every filler it names (weight_filler,
// bias_filler, DummyData's data_filler, ...; wherever a FillerParameter sits in a layer's
// parameters) against the fillers dtrain has, so that `dtrain check` names a filler it lacks
// without the data the net reads (a net is built, and its fillers met, only when its data
// sources exist). Stateless.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

// Ok when every filler of `net` is known; else Unsupported listing each, one per line after
// `source`: the layer, the field's path in it and why.
Status CheckFillers(const NetParameter& net, const std::string& source);

}  // namespace dtrain
