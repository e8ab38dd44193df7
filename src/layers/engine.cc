#include "layers/engine.h"

#include <algorithm>
#include <cctype>

#include "proto/layer_params.pb.h"

namespace dtrain {
namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// Caffe's per-type `engine` enums: CAFFE asks for Caffe's own (our reference) kernel.
bool AsksForCaffeEngine(const LayerParameter& layer) {
  return (layer.has_convolution_param() &&
          layer.convolution_param().engine() == ConvolutionParameter::CAFFE) ||
         (layer.has_pooling_param() && layer.pooling_param().engine() == PoolingParameter::CAFFE) ||
         (layer.has_lrn_param() && layer.lrn_param().engine() == LRNParameter::CAFFE) ||
         (layer.has_relu_param() && layer.relu_param().engine() == ReLUParameter::CAFFE) ||
         (layer.has_softmax_param() && layer.softmax_param().engine() == SoftmaxParameter::CAFFE);
}

}  // namespace

StatusOr<Engine> ParseEngine(const std::string& name) {
  const std::string upper = Upper(name);
  if (upper.empty() || upper == "ANY") return Engine::kAny;
  if (upper == "ONEDNN" || upper == "MKLDNN" || upper == "MKL2017") return Engine::kOnednn;
  if (upper == "REFERENCE" || upper == "CAFFE") return Engine::kReference;
  return InvalidArgument("unknown engine '" + name +
                         "' (expected ONEDNN, MKLDNN, REFERENCE, CAFFE or ANY)");
}

const char* EngineName(Engine engine) {
  switch (engine) {
    case Engine::kAny:
      return "ANY";
    case Engine::kOnednn:
      return "ONEDNN";
    case Engine::kReference:
      return "REFERENCE";
  }
  return "?";
}

std::string ResolveEngineName(const LayerParameter& layer, const std::string& net_default,
                              const std::string& forced) {
  if (!forced.empty()) return forced;
  if (!layer.engine().empty()) return layer.engine();
  if (AsksForCaffeEngine(layer)) return "CAFFE";
  return net_default;
}

}  // namespace dtrain
