#include "export/onnx_export.h"

#include <exception>

#include "core/atomic_file.h"
#include "export/onnx_graph.h"
#include "export/onnx_layer_export.h"
#include "onnx/checker.h"
#include "onnx/shape_inference/implementation.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// A layer without bottoms and without an exporter (Input and Parameter have one) reads data.
bool IsDataSource(const Net& net, int i) { return net.bottom_vecs()[i].empty(); }

bool IsTrainingOnly(const std::string& type) {
  return type == "Accuracy" || (type.size() > 4 && type.compare(type.size() - 4, 4, "Loss") == 0);
}

std::string KnownTypes() {
  std::string list = "Input";
  for (const auto& [type, exporter] : LayerExporters()) list += ", " + type;
  return list;
}

// Why layer i cannot be exported when its type has no exporter.
Status NoExporter(const Net& net, int i) {
  const Layer& layer = *net.layers()[i];
  const std::string prefix = "layer '" + layer.name() + "' (" + layer.type() + ") ";
  if (IsDataSource(net, i)) {
    return Unsupported(prefix +
                       "reads a data source; export a deploy net, whose inputs are Input layers "
                       "(or input: fields)");
  }
  if (IsTrainingOnly(layer.type())) {
    return Unsupported(prefix + "is a loss or accuracy layer; export a deploy net without them");
  }
  return Unsupported(prefix +
                     "has no exact ONNX equivalent in dtrain export; the layer types "
                     "exported are " +
                     KnownTypes());
}

// With a dynamic batch every input leads with the same batch axis.
Status CheckBatchInput(const Net& net, int id) {
  int first = -1;  // the first input
  for (size_t i = 0; i < net.layers().size() && first < 0; ++i) {
    if (std::string(net.layers()[i]->type()) == "Input") first = net.top_ids()[i][0];
  }
  const Tensor& input = *net.blob(id);
  const Tensor& batch = *net.blob(first);
  if (input.num_axes() == 0 || batch.num_axes() == 0 || input.shape(0) != batch.shape(0)) {
    return InvalidArgument("--dynamic-batch: input '" + net.blob_names()[id] + "' (" +
                           input.ShapeString() + ") does not lead with the batch axis of '" +
                           net.blob_names()[first] + "' (" + batch.ShapeString() + ")");
  }
  return Status::Ok();
}

std::string ShapeText(const onnx::ValueInfoProto& info) {
  std::string text = info.name() + " ";
  const auto& dims = info.type().tensor_type().shape().dim();
  for (int d = 0; d < dims.size(); ++d) {
    text += (d > 0 ? "x" : "") +
            (dims[d].has_dim_param() ? dims[d].dim_param() : std::to_string(dims[d].dim_value()));
  }
  return text;
}

// ONNX's checker and strict shape inference (which also compares the declared output shapes with
// the inferred ones), on a copy so that the model keeps no inferred value_info.
Status Check(const onnx::ModelProto& model) {
  try {
    onnx::checker::check_model(model);
    onnx::ModelProto inferred = model;
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    return Unsupported(std::string("the exported graph fails ONNX's checks: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace

void LayerExport::PassThrough(int i, int j) const {
  if (graph->IsLastWrite(index, i)) {
    Node("Identity", {inputs[j]}, {Output(i)});
  } else {
    graph->Alias(graph->net().top_ids()[index][i], inputs[j]);
  }
}

std::vector<int64_t> BroadcastDims(const std::vector<int64_t>& dims, int axis, int rank) {
  std::vector<int64_t> out = dims;
  while (static_cast<int>(out.size()) < rank - axis) out.push_back(1);
  return out;
}

const ExporterTable& LayerExporters() {
  static const ExporterTable* table = [] {
    auto* t = new ExporterTable;
    AddWindowExporters(t);
    AddElementwiseExporters(t);
    AddShapeExporters(t);
    AddDetectionExporters(t);
    return t;
  }();
  return *table;
}

StatusOr<onnx::ModelProto> ExportOnnx(const Net& net, const OnnxExportOptions& options) {
  if (options.opset < kMinOpset || options.opset > kMaxOpset) {
    return InvalidArgument("--opset " + std::to_string(options.opset) + " is not supported: " +
                           std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  }
  if (net.phase() != TEST) {
    return InvalidArgument(
        "the net is built for the TRAIN phase; ONNX export takes a TEST-phase "
        "net (Dropout, BatchNorm and data layers differ between the phases)");
  }
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  model.set_producer_name("dtrain");
  model.set_producer_version(options.producer_version);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(options.opset);
  onnx::GraphProto* graph_proto = model.mutable_graph();
  graph_proto->set_name(net.name().empty() ? "dtrain" : net.name());
  OnnxGraph graph(net, graph_proto, options.dynamic_batch);

  const ExporterTable& exporters = LayerExporters();
  const int layers = static_cast<int>(net.layers().size());
  for (int i = 0; i < layers;) {
    const Layer& layer = *net.layers()[i];
    if (std::string(layer.type()) == "Input") {
      for (int id : net.top_ids()[i]) {
        if (options.dynamic_batch) DT_RETURN_IF_ERROR(CheckBatchInput(net, id));
        graph.AddInput(id);
      }
      ++i;
      continue;
    }
    auto exporter = exporters.find(layer.type());
    if (exporter == exporters.end()) return NoExporter(net, i);
    LayerExport e{i, layer, net.bottom_vecs()[i], net.top_vecs()[i], {}, &graph};
    for (int id : net.bottom_ids()[i]) e.inputs.push_back(graph.Value(id));
    DT_RETURN_IF_ERROR(exporter->second(e));
    i += e.covers;
  }
  if (graph_proto->input_size() == 0) {
    return InvalidArgument("the net has no Input layer (or input: field) to be the graph's input");
  }
  for (int id : net.output_blob_indices()) graph.AddOutput(id);
  DT_RETURN_IF_ERROR(Check(model));
  return model;
}

Status WriteOnnxModel(const onnx::ModelProto& model, const std::string& path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    return Unsupported(path + ": the model is too large for one protobuf message (2 GiB)");
  }
  return WriteFileAtomically(path, bytes);
}

OnnxModelSummary Summarize(const onnx::ModelProto& model) {
  OnnxModelSummary s;
  const onnx::GraphProto& g = model.graph();
  s.nodes = g.node_size();
  s.initializers = g.initializer_size();
  for (const onnx::TensorProto& t : g.initializer()) {
    if (t.data_type() == onnx::TensorProto::FLOAT) {
      s.parameters += static_cast<int64_t>(t.raw_data().size() / sizeof(float));
    }
  }
  for (const auto& in : g.input()) s.inputs += (s.inputs.empty() ? "" : ", ") + ShapeText(in);
  for (const auto& out : g.output()) s.outputs += (s.outputs.empty() ? "" : ", ") + ShapeText(out);
  return s;
}

}  // namespace dtrain
