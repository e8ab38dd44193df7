// How one Caffe layer of a built net becomes ONNX nodes: the exporter of its type gets a
// LayerExport (the layer, its tensors, the values of its bottoms, the graph) and writes nodes
// whose outputs are Output(i) for each top. The exporters are grouped by kind, one file each:
//   onnx_window_layers.cc       Convolution, Deconvolution, InnerProduct, Pooling, LRN
//   onnx_elementwise_layers.cc  activations, Power/Exp/Log, Eltwise, Scale, Bias, BatchNorm, MVN
//   onnx_shape_layers.cc        Concat, Slice, Split, Flatten, Reshape, Crop, Tile, Softmax,
//                               ArgMax, Reduction, Dropout, Embed, ShuffleChannel, Silence,
//                               Parameter
//   onnx_detection_layers.cc    Permute, Normalize, Axpy
// Every mapping is exact for the TEST phase: the ONNX graph computes what the layer's forward
// computes, for the net's shapes (the shapes are fixed: those the net was built with). A
// configuration with no exact equivalent is refused with the layer's name and the reason.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "export/onnx_graph.h"
#include "layers/layer.h"

namespace dtrain {

struct LayerExport {
  int index = 0;  // in the net
  const Layer& layer;
  const TensorVec& bottom;
  const TensorVec& top;
  std::vector<std::string> inputs;  // the values of the bottoms
  OnnxGraph* graph;
  // Layers this export covers, itself included: an exporter may fold the next layers in (a
  // Scale after a BatchNorm); it then writes their tops.
  int covers = 1;

  const LayerParameter& param() const { return layer.layer_param(); }
  // The value for top `i` (made the blob's current value).
  std::string Output(int i) const { return graph->TopValue(index, i); }
  // A name for a node, initializer or intermediate value of this layer: "<layer>/<what>".
  std::string Name(const std::string& what) const { return layer.name() + "/" + what; }
  // Adds a node named after the layer (the main one) or after `what`.
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out, const std::string& what = "") const {
    return graph->AddNode(op, what.empty() ? layer.name() : Name(what), in, out);
  }
  // Top `i` is bottom `j`'s value: aliased, or an Identity where the top's name must appear.
  void PassThrough(int i, int j) const;
  // With a dynamic batch, an error when the layer works along `axis` and it is 0 (the batch).
  Status RequireNotBatchAxis(int axis) const {
    if (!graph->dynamic_batch() || axis != 0) return Status::Ok();
    return Unsupported("layer '" + layer.name() + "' (" + layer.type() +
                       "): works along axis 0, the batch, which --dynamic-batch leaves open; "
                       "export it with the net's fixed batch");
  }
  // The error for a configuration with no exact ONNX form.
  Status Refuse(const std::string& why) const {
    return Unsupported("layer '" + layer.name() + "' (" + layer.type() + "): " + why +
                       "; it has no exact ONNX equivalent");
  }
};

using LayerExporter = std::function<Status(LayerExport&)>;
using ExporterTable = std::map<std::string, LayerExporter>;

void AddWindowExporters(ExporterTable* table);
void AddElementwiseExporters(ExporterTable* table);
void AddShapeExporters(ExporterTable* table);
void AddDetectionExporters(ExporterTable* table);

// Every exporter, by layer type.
const ExporterTable& LayerExporters();

// The dims that make a parameter of shape `dims` (a scale, bias or slope) apply to the axes from
// `axis` on of a tensor with `rank` axes: `dims` followed by 1s up to the rank (ONNX broadcasts
// by trailing axes).
std::vector<int64_t> BroadcastDims(const std::vector<int64_t>& dims, int axis, int rank);

}  // namespace dtrain
