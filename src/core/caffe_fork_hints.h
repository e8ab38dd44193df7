// Hints for what Caffe's forks (SSD, Faster R-CNN, DeepLab, PSPNet, SegNet, NVIDIA's and others)
// write in their model files and BVLC Caffe's schema lacks: a field or a layer type that dtrain
// does not know is refused, and where its origin is known the error says where it comes from and
// what BVLC's spelling is. Pure lookups in constant tables; thread-safe.
#pragma once

#include <string>

namespace dtrain {

// For an unknown field `field` of message `message` ("LayerParameter", "BatchNormParameter"):
// e.g. "interp_param belongs to DeepLab's and PSPNet's Interp layer, which dtrain does not have".
// Empty when nothing is known about it.
std::string CaffeFieldHint(const std::string& message, const std::string& field);

// For a layer type the registry lacks: e.g. "Interp is DeepLab's and PSPNet's layer". Empty when
// nothing is known about it.
std::string CaffeLayerTypeHint(const std::string& type);

}  // namespace dtrain
