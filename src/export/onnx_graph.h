// OnnxGraph: the ONNX graph being written for one built Net, and the names of its values.
//
// ONNX values are written once (static single assignment); Caffe blobs are overwritten by layers
// running in place (a ReLU on "conv1", a Dropout on "fc7"). So each write of a blob gets a value
// name of its own: the blob's name for the last layer that writes it (so the graph's outputs are
// named as the net's blobs are, "prob"), and "<blob>/<layer>" for the writes before. Graph inputs
// (the tops of Input layers) always keep their blob's name. A value can also stand for a blob
// without a node (Split's tops, Dropout's at test time are their bottom's value) unless its name
// must appear as written: then the layer writes an Identity.
//
// Weights go in as initializers (float32, raw little-endian data); a tensor shared by several
// layers (param { name }) becomes one initializer. With a dynamic batch, the first axis of the
// graph's inputs and outputs is the symbolic "batch", and shapes written for Reshape leave their
// first axis to be inferred (-1) where it is the batch (the other axes are fixed). Not thread-safe;
// borrows the net and the GraphProto, which must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "net/net.h"
#include "onnx/onnx_pb.h"

namespace dtrain {

class OnnxGraph {
 public:
  OnnxGraph(const Net& net, onnx::GraphProto* graph, bool dynamic_batch);

  // The value that holds blob `blob_id` now (after the layers exported so far).
  const std::string& Value(int blob_id) const { return current_[blob_id]; }
  // The value name for top `top_index` of layer `layer_index`, made current for its blob.
  std::string TopValue(int layer_index, int top_index);
  // True when TopValue would give the blob's own name (the layer is its last writer).
  bool IsLastWrite(int layer_index, int top_index) const;
  // Blob `blob_id` is now `value` (no node written).
  void Alias(int blob_id, const std::string& value) { current_[blob_id] = value; }

  // A graph input named after blob `blob_id`, of its shape.
  void AddInput(int blob_id);
  // A graph output for blob `blob_id`'s current value, of its shape.
  void AddOutput(int blob_id);

  // Initializer holding `tensor`'s values in shape `dims` (default: the tensor's); the same tensor
  // asked for again in the same shape gives the first name.
  std::string Weights(const std::string& name, const Tensor& tensor,
                      const std::vector<int64_t>& dims = {});
  std::string Floats(const std::string& name, const std::vector<int64_t>& dims,
                     const std::vector<float>& values);
  std::string Scalar(const std::string& name, float value) { return Floats(name, {}, {value}); }
  std::string Int64s(const std::string& name, const std::vector<int64_t>& values);
  // A shape for Reshape; when `leads_with_batch` and the batch is dynamic, its first dim is -1
  // (Reshape's "whatever the size makes it").
  std::string Shape(const std::string& name, std::vector<int64_t> dims, bool leads_with_batch);

  // A node of the default domain; `name` is made unique.
  onnx::NodeProto* AddNode(const std::string& op_type, const std::string& name,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs);
  // A fresh name for an intermediate value, from `base`.
  std::string Temporary(const std::string& base);

  const Net& net() const { return net_; }
  bool dynamic_batch() const { return dynamic_batch_; }

 private:
  std::string Unique(const std::string& base, std::set<std::string>* used);
  void AddValueInfo(onnx::ValueInfoProto* info, const std::string& name, const Tensor& tensor);

  const Net& net_;
  onnx::GraphProto* graph_;
  bool dynamic_batch_;
  std::vector<std::string> current_;  // per blob: its value now
  std::vector<int> last_writer_;      // per blob: the last layer writing it (-1: none)
  std::vector<bool> name_taken_;      // per blob: a value carries its name already
  std::set<std::string> value_names_, node_names_, initializer_names_;
  std::map<std::pair<const Tensor*, std::vector<int64_t>>, std::string> weights_;
};

// Attribute setters for a node.
void SetAttribute(onnx::NodeProto* node, const std::string& name, int64_t value);
void SetAttribute(onnx::NodeProto* node, const std::string& name, float value);
void SetAttribute(onnx::NodeProto* node, const std::string& name,
                  const std::vector<int64_t>& values);
void SetAttribute(onnx::NodeProto* node, const std::string& name, const std::string& value);

// A tensor's shape as ONNX dims.
std::vector<int64_t> Dims(const Tensor& tensor);

}  // namespace dtrain
