// Phase/level/stage filtering of a NetParameter, as Caffe's Net::FilterNet does.
//
// A layer is kept when the NetState meets at least one of its `include` rules (or it has none)
// and meets none of its `exclude` rules. A rule is met when every condition it states holds:
// phase equal, level within [min_level, max_level], all `stage`s present, no `not_stage` present.
// Pure functions over protobuf values.
#pragma once

#include "core/status.h"
#include "proto/net.pb.h"

namespace dtrain {

bool StateMeetsRule(const NetState& state, const NetStateRule& rule);
// Whether `state` keeps `layer` by the rules above (a layer with both kinds of rules, which
// FilterNet refuses, is kept by its include rules).
bool StateKeepsLayer(const NetState& state, const LayerParameter& layer);
// The layers of `param` that `state` selects; error if a layer has both include and exclude.
StatusOr<NetParameter> FilterNet(const NetParameter& param, const NetState& state);

// Turns the legacy top-level `input`/`input_shape`/`input_dim` fields into an Input layer at the
// front of the net, so the rest of dtrain sees only layers.
StatusOr<NetParameter> ConvertLegacyInputs(const NetParameter& param);

}  // namespace dtrain
