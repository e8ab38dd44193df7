#include "net/intel_fields.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <set>
#include <vector>

#include "proto/filler.pb.h"

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

bool IsIntelEngineWord(const std::string& engine) {
  const std::string word = engine.substr(0, engine.find(':'));
  return word.find("MKL2017") != std::string::npos || word.find("MKLDNN") != std::string::npos;
}

// Whether a FillerParameter anywhere in `message` is Intel's (gabor, or msra with a scale).
bool HasIntelFiller(const google::protobuf::Message& message) {
  if (const auto* filler = dynamic_cast<const FillerParameter*>(&message)) {
    return filler->type() == "gabor" || filler->has_scale();
  }
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        if (HasIntelFiller(reflection->GetRepeatedMessage(message, field, i))) return true;
      }
    } else if (HasIntelFiller(reflection->GetMessage(message, field))) {
      return true;
    }
  }
  return false;
}

// Whether one of the per-type engine enums names MKL2017 (3) or MKLDNN (4).
template <typename Param>
bool IntelEnum(bool has, const Param& param) {
  return has && (static_cast<int>(param.engine()) == 3 || static_cast<int>(param.engine()) == 4);
}

bool LayerWrittenForIntelCaffe(const LayerParameter& layer) {
  const BatchNormParameter& bn = layer.batch_norm_param();
  const TransformationParameter& transform = layer.transform_param();
  return IsIntelEngineWord(layer.engine()) || bn.has_engine() || bn.has_use_weight_bias() ||
         bn.has_bias_term() || bn.has_filler() || bn.has_bias_filler() ||
         bn.has_stats_batch_size() || bn.has_relu() || transform.has_random_resize_param() ||
         transform.has_random_aspect_ratio_param() || transform.has_pad() ||
         layer.data_param().has_shuffle() || layer.has_quantization_param() ||
         layer.has_multinode() || layer.has_mn_activation_param() ||
         layer.has_mn_grad_compress_param() || layer.convolution_param().has_conv_algorithm() ||
         IntelEnum(layer.has_convolution_param(), layer.convolution_param()) ||
         IntelEnum(layer.has_pooling_param(), layer.pooling_param()) ||
         IntelEnum(layer.has_lrn_param(), layer.lrn_param()) ||
         IntelEnum(layer.has_relu_param(), layer.relu_param()) ||
         IntelEnum(layer.has_softmax_param(), layer.softmax_param()) ||
         IntelEnum(layer.has_concat_param(), layer.concat_param()) || HasIntelFiller(layer);
}

}  // namespace

bool WrittenForIntelCaffe(const NetParameter& net) {
  if (IsIntelEngineWord(net.engine()) || net.has_bn_stats_batch_size() || net.has_multinode()) {
    return true;
  }
  for (const LayerParameter& layer : net.layer()) {
    if (LayerWrittenForIntelCaffe(layer)) return true;
  }
  return false;
}

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
