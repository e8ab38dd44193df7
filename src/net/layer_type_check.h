// One pass over a net's layers that names every layer type the registry lacks, so that a file
// from a fork is refused once with all it needs, not once per missing type. Each entry says the
// layer, its type and, where the fork is known, where the type comes from
// (core/caffe_fork_hints.h). Stateless.
#pragma once

#include <string>

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

// Ok when the registry knows every layer type of `net` (all phases); else Unsupported listing,
// one per line after `source` (left out when empty), each layer with an unknown type, then the
// supported types.
Status CheckLayerTypes(const NetParameter& net, const std::string& source);

}  // namespace dtrain
