#include "net/intel_fields.h"

#include <set>

namespace dtrain {
namespace {

const char kDataParallelOnly[] =
    "Intel Caffe's model parallelism; dtrain trains data-parallel only (every rank holds the whole "
    "net), so only num_nodes 0 and model_parts 1 are accepted";

// Why `layer` cannot be built as Intel Caffe built it, one entry per field; empty when it can.
std::vector<std::string> RefusedFields(const LayerParameter& layer) {
  std::vector<std::string> why;
  if (layer.has_multinode()) {
    const MultinodeLayerParameter& mn = layer.multinode();
    if (mn.num_nodes() != 0 || mn.model_parts() != 1) {
      why.push_back("multinode { num_nodes: " + std::to_string(mn.num_nodes()) + " model_parts: " +
                    std::to_string(mn.model_parts()) + " }: " + kDataParallelOnly);
    }
  }
  if (layer.has_mn_activation_param()) {
    const MnActivationParameter& mn = layer.mn_activation_param();
    if (mn.num_nodes_in() != 0 || mn.num_nodes_out() != 0 || mn.model_parts_in() != 1 ||
        mn.model_parts_out() != 1) {
      why.push_back(std::string("mn_activation_param: ") + kDataParallelOnly);
    }
  }
  if (layer.has_convolution_param() && layer.convolution_param().has_conv_algorithm()) {
    const std::string& algorithm = layer.convolution_param().conv_algorithm();
    if (algorithm != "direct" && algorithm != "winograd" && algorithm != "auto") {
      why.push_back("convolution_param.conv_algorithm \"" + algorithm +
                    "\": Intel Caffe's values are direct, winograd and auto");
    }
  }
  return why;
}

}  // namespace

Status CheckIntelFields(const NetParameter& net, const std::string& source) {
  std::string problems;
  int count = 0;
  for (const MnModelParallelParameter& range : net.multinode().model_parallel()) {
    if (range.model_parts() == 1) continue;
    problems +=
        "\n  multinode.model_parallel from '" + range.layer_from() + "': " + kDataParallelOnly;
    ++count;
  }
  for (const LayerParameter& layer : net.layer()) {
    for (const std::string& why : RefusedFields(layer)) {
      problems += "\n  layer '" + layer.name() + "': " + why;
      ++count;
    }
  }
  if (count == 0) return Status::Ok();
  return Unsupported((source.empty() ? "" : source + ": ") + std::to_string(count) +
                     " Intel Caffe setting(s) dtrain refuses:" + problems);
}

std::vector<std::string> IntelFieldNotes(const NetParameter& net, bool training) {
  int quantized = 0;
  std::set<std::string> compressed_types(
      net.multinode().compress_layer_type_list().layer_type().begin(),
      net.multinode().compress_layer_type_list().layer_type().end());
  std::set<std::string> algorithms;
  for (const LayerParameter& layer : net.layer()) {
    if (layer.has_quantization_param()) ++quantized;
    for (bool enabled : layer.mn_grad_compress_param().param_grad_compress_enable()) {
      if (enabled) compressed_types.insert(layer.type());
    }
    const std::string& algorithm = layer.convolution_param().conv_algorithm();
    if (layer.convolution_param().has_conv_algorithm() && algorithm != "direct") {
      algorithms.insert(algorithm);
    }
  }
  std::vector<std::string> notes;
  if (quantized > 0) {
    notes.push_back(std::to_string(quantized) +
                    " layer(s) carry Intel Caffe's int8 quantization_param: dtrain computes them "
                    "in fp32, the int8 scales are not applied");
  }
  if (training && !compressed_types.empty()) {
    std::string types;
    for (const std::string& type : compressed_types) types += (types.empty() ? "" : ", ") + type;
    notes.push_back("gradient compression of " + types +
                    " (Intel Caffe's multinode setting) is not applied: gradients are exchanged "
                    "exact, as Intel Caffe exchanges them where its compression library is absent");
  }
  for (const std::string& algorithm : algorithms) {
    notes.push_back("conv_algorithm \"" + algorithm +
                    "\": oneDNN's direct convolution computes these layers (Intel Caffe's own "
                    "fallback where its choice is not available)");
  }
  return notes;
}

}  // namespace dtrain
