// The layer registry: the one visible list of every layer type dtrain supports, by Caffe's type
// name. No static self-registration: registry.cc names each layer explicitly.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "layers/layer.h"

namespace dtrain {

// Creates the layer named by param.type(); an unknown type is an error listing the supported ones.
StatusOr<std::unique_ptr<Layer>> CreateLayer(const LayerParameter& param,
                                             const LayerContext& context);
bool IsSupportedLayerType(const std::string& type);
std::vector<std::string> SupportedLayerTypes();

}  // namespace dtrain
