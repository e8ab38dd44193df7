// The layer registry: the one visible list of every layer type dtrain supports, by Caffe's type
// name. No static self-registration: registry.cc names each layer explicitly.
#pragma once

#include <functional>
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

// Makes one layer from its parameters and context.
using LayerFactory =
    std::function<std::unique_ptr<Layer>(const LayerParameter&, const LayerContext&)>;

// The one type whose code lives outside this library: "Python" (Caffe's PythonLayer), which runs
// the user's Python class in an interpreter that the layers library does not link. The programs
// that have one install its factory once at start, before any net is built (the dtrain command's
// main and the _dtrain module's init, both through src/pylayer/); until then, and in a build
// without Python, "Python" is an unknown type, refused by name (core/caffe_fork_hints.h). Not
// thread-safe against CreateLayer.
void SetPythonLayerFactory(LayerFactory factory);

}  // namespace dtrain
