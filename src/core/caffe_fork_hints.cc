#include "core/caffe_fork_hints.h"

#include <map>

namespace dtrain {
namespace {

// Layer types of the forks, by the fork that defines them.
const std::map<std::string, std::string>& ForkLayers() {
  static const std::map<std::string, std::string> forks = {
      {"Interp", "DeepLab's and PSPNet's"},
      {"BN", "SegNet's and PSPNet's (BVLC's equivalent is BatchNorm followed by Scale)"},
      {"Upsample", "SegNet's"},
      {"Region", "a YOLO port's"},
      {"CenterLoss", "the center-loss fork's"},
  };
  return forks;
}

// Fields of LayerParameter that hold a fork layer's settings.
const std::map<std::string, std::string>& ForkLayerFields() {
  static const std::map<std::string, std::string> fields = {
      {"interp_param", "Interp"},          {"bn_param", "BN"},
      {"upsample_param", "Upsample"},      {"region_param", "Region"},
      {"center_loss_param", "CenterLoss"},
  };
  return fields;
}

}  // namespace

std::string CaffeFieldHint(const std::string& message, const std::string& field) {
  if (message == "BatchNormParameter" &&
      (field == "scale_filler" || field == "bias_filler" || field == "scale_bias")) {
    return field +
           " is NVIDIA Caffe's; in BVLC Caffe a Scale layer after BatchNorm learns the "
           "scale and bias";
  }
  if (message == "LayerParameter") {
    const auto fork = ForkLayerFields().find(field);
    if (fork != ForkLayerFields().end()) {
      return field + " belongs to " + ForkLayers().at(fork->second) + " " + fork->second +
             " layer, which dtrain does not have";
    }
  }
  return "";
}

std::string CaffeLayerTypeHint(const std::string& type) {
  if (type == "Python") {
    // Unknown only where the program installed no Python layers (layers/registry.h).
    return "Python layers run the model's own Python code; this dtrain was built without Python "
           "(-DDTRAIN_PYTHON=OFF)";
  }
  const auto fork = ForkLayers().find(type);
  if (fork == ForkLayers().end()) return "";
  return type + " is " + fork->second + " layer";
}

}  // namespace dtrain
