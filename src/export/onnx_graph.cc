#include "export/onnx_graph.h"

#include <cstring>

namespace dtrain {

OnnxGraph::OnnxGraph(const Net& net, onnx::GraphProto* graph, bool dynamic_batch)
    : net_(net),
      graph_(graph),
      dynamic_batch_(dynamic_batch),
      current_(net.blob_names().size()),
      last_writer_(net.blob_names().size(), -1),
      name_taken_(net.blob_names().size(), false) {
  for (size_t i = 0; i < net.layers().size(); ++i) {
    for (int id : net.top_ids()[i]) last_writer_[id] = static_cast<int>(i);
  }
  // Blob names are kept for the values that carry them; nothing else may take one.
  for (const std::string& name : net.blob_names()) value_names_.insert(name);
}

bool OnnxGraph::IsLastWrite(int layer_index, int top_index) const {
  const int id = net_.top_ids()[layer_index][top_index];
  return last_writer_[id] == layer_index && !name_taken_[id];
}

std::string OnnxGraph::TopValue(int layer_index, int top_index) {
  const int id = net_.top_ids()[layer_index][top_index];
  const std::string& blob = net_.blob_names()[id];
  const std::string value =
      IsLastWrite(layer_index, top_index)
          ? blob
          : Unique(blob + "/" + net_.layer_names()[layer_index], &value_names_);
  if (value == blob) name_taken_[id] = true;
  current_[id] = value;
  return value;
}

void OnnxGraph::AddInput(int blob_id) {
  current_[blob_id] = net_.blob_names()[blob_id];
  name_taken_[blob_id] = true;
  AddValueInfo(graph_->add_input(), current_[blob_id], *net_.blob(blob_id));
}

void OnnxGraph::AddOutput(int blob_id) {
  AddValueInfo(graph_->add_output(), current_[blob_id], *net_.blob(blob_id));
}

void OnnxGraph::AddValueInfo(onnx::ValueInfoProto* info, const std::string& name,
                             const Tensor& tensor) {
  info->set_name(name);
  onnx::TypeProto_Tensor* type = info->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorShapeProto* shape = type->mutable_shape();
  const std::vector<int64_t> dims = Dims(tensor);
  for (size_t a = 0; a < dims.size(); ++a) {
    if (a == 0 && dynamic_batch_) {
      shape->add_dim()->set_dim_param("batch");
    } else {
      shape->add_dim()->set_dim_value(dims[a]);
    }
  }
}

std::string OnnxGraph::Weights(const std::string& name, const Tensor& tensor,
                               const std::vector<int64_t>& dims) {
  const std::vector<int64_t> shape = dims.empty() ? Dims(tensor) : dims;
  auto known = weights_.find({&tensor, shape});
  if (known != weights_.end()) return known->second;
  const float* values = tensor.data();
  std::string written = Floats(name, shape, std::vector<float>(values, values + tensor.count()));
  weights_[{&tensor, shape}] = written;
  return written;
}

std::string OnnxGraph::Floats(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& values) {
  onnx::TensorProto* t = graph_->add_initializer();
  t->set_name(Unique(name, &value_names_));
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  // ONNX's raw_data is little-endian, as this machine's floats are (x86-64, aarch64).
  std::string raw(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  t->set_raw_data(std::move(raw));
  return t->name();
}

std::string OnnxGraph::Int64s(const std::string& name, const std::vector<int64_t>& values) {
  onnx::TensorProto* t = graph_->add_initializer();
  t->set_name(Unique(name, &value_names_));
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
  return t->name();
}

std::string OnnxGraph::Shape(const std::string& name, std::vector<int64_t> dims,
                             bool leads_with_batch) {
  if (dynamic_batch_ && leads_with_batch && !dims.empty()) dims[0] = -1;
  return Int64s(name, dims);
}

onnx::NodeProto* OnnxGraph::AddNode(const std::string& op_type, const std::string& name,
                                    const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs) {
  onnx::NodeProto* node = graph_->add_node();
  node->set_op_type(op_type);
  node->set_name(Unique(name, &node_names_));
  for (const std::string& in : inputs) node->add_input(in);
  for (const std::string& out : outputs) node->add_output(out);
  return node;
}

std::string OnnxGraph::Temporary(const std::string& base) { return Unique(base, &value_names_); }

std::string OnnxGraph::Unique(const std::string& base, std::set<std::string>* used) {
  std::string name = base;
  for (int n = 1; used->count(name) > 0; ++n) name = base + "_" + std::to_string(n);
  used->insert(name);
  return name;
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, int64_t value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, float value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void SetAttribute(onnx::NodeProto* node, const std::string& name,
                  const std::vector<int64_t>& values) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

void SetAttribute(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

std::vector<int64_t> Dims(const Tensor& tensor) {
  return std::vector<int64_t>(tensor.shape().begin(), tensor.shape().end());
}

}  // namespace dtrain
