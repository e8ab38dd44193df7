#include "python/net_binding.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "core/proto_checksum.h"
#include "core/proto_io.h"
#include "export/onnx_export.h"
#include "net/read_net.h"
#include "pylayer/python_layer.h"
#include "python/path_args.h"
#include "python/python_errors.h"
#include "python/tensor_views.h"
#include "solver/hdf5_snapshot.h"
#include "solver/net_loading.h"

namespace py = pybind11;

namespace dtrain::python {

NetHandle LoadNet(const std::string& model, Phase phase, const std::string& weights, int level,
                  const std::vector<std::string>& stages) {
  NetParameter param = ValueOrThrow(ReadNetParameter(model));
  param.set_keep_blob_diffs(true);
  NetState state;
  state.set_phase(phase);
  state.set_level(level);
  for (const std::string& stage : stages) state.add_stage(stage);
  std::unique_ptr<Net> net = ValueOrThrow(Net::Create(param, state, 1701));
  if (!weights.empty()) ThrowIfError(LoadWeights(weights, /*strict=*/false, net.get()));
  return NetHandle{std::shared_ptr<Net>(std::move(net))};
}

namespace {

// Layer indices from Python: [start, end] within the net, start <= end for forward.
void CheckLayerRange(const Net& net, int first, int last, const char* what) {
  const int layers = static_cast<int>(net.layers().size());
  if (first < 0 || first >= layers || last < 0 || last >= layers) {
    throw py::index_error(std::string(what) + ": layer indices " + std::to_string(first) + " and " +
                          std::to_string(last) + " are not both in [0, " + std::to_string(layers) +
                          ")");
  }
}

// Layers low..high as a range that cuts no fused group (Net::FuseLayers: a BatchNorm computing the
// Scale and ReLU after it, a 1x1 Convolution computing a BatchNorm after it), whose layers run
// only together.
void CheckNoFusedGroupCut(const Net& net, int low, int high, const char* what) {
  const auto& layers = net.layers();
  const auto cut = [&](int absorbed) {
    int owner = absorbed;
    while (owner > 0 && layers[owner]->absorbed()) --owner;
    throw py::value_error(std::string(what) + ": layer '" + net.layer_names()[absorbed] +
                          "' runs inside '" + net.layer_names()[owner] +
                          "' (fused), so a range cannot start or end between them; start or end "
                          "the range at the group's edge, or set fuse_layers: false in the net");
  };
  if (layers[low]->absorbed()) cut(low);
  if (high + 1 < static_cast<int>(layers.size()) && layers[high + 1]->absorbed()) cut(high + 1);
}

BlobRef Ref(const NetHandle& h, Tensor* t) { return BlobRef{h.net, t}; }

std::vector<std::string> BlobNames(const Net& net, const std::vector<int>& ids) {
  std::vector<std::string> names;
  for (int id : ids) names.push_back(net.blob_names()[id]);
  return names;
}

void SaveWeights(const Net& net, const std::string& path) {
  NetParameter weights;
  net.ToProto(&weights, /*write_diff=*/false);
  if (IsHdf5SnapshotPath(path)) {
    ThrowIfError(WriteWeightsHdf5(weights, path));
    return;
  }
  SealWithChecksum(&weights);
  ThrowIfError(WriteBinaryProtoAtomically(path, weights));
}

}  // namespace

float ForwardOnPlainValues(Net& net, int start, int end) {
  CheckLayerRange(net, start, end, "forward");
  if (start > end) throw py::value_error("forward: start comes after end");
  CheckNoFusedGroupCut(net, start, end, "forward");
  ClaimPlainValues({&net}, /*diffs=*/false);
  StatusOr<float> loss = net.ForwardFromTo(start, end);
  PublishPlainValues({&net}, /*diffs=*/false);
  return ValueOrThrow(std::move(loss));
}

void BackwardOnPlainValues(Net& net, int start, int end, bool prime_losses) {
  CheckLayerRange(net, start, end, "backward");
  if (start < end) throw py::value_error("backward: start comes before end (it runs backwards)");
  CheckNoFusedGroupCut(net, end, start, "backward");
  ClaimPlainValues({&net}, /*diffs=*/true);
  const bool whole = start == static_cast<int>(net.layers().size()) - 1 && end == 0;
  if (whole && prime_losses) {
    net.Backward();
  } else {
    net.BackwardFromTo(start, end);
  }
  PublishPlainValues({&net}, /*diffs=*/true);
  ThrowIfError(net.TakeBackwardError());
}

void BindNet(py::module_& m) {
  py::class_<NetHandle>(m, "_Net", "the C++ side of dtrain.Net")
      .def(py::init([](const py::object& model, int phase, const py::object& weights, int level,
                       const std::vector<std::string>& stages) {
             if (phase != TRAIN && phase != TEST) {
               throw py::value_error("phase must be TRAIN (0) or TEST (1), not " +
                                     std::to_string(phase));
             }
             return LoadNet(PathArg(model, "Net: model"), static_cast<Phase>(phase),
                            PathArg(weights, "Net: weights"), level, stages);
           }),
           py::arg("model"), py::arg("phase"), py::arg("weights"), py::arg("level"),
           py::arg("stages"))
      .def_property_readonly("name", [](const NetHandle& h) { return h.net->name(); })
      .def_property_readonly("phase",
                             [](const NetHandle& h) { return static_cast<int>(h.net->phase()); })
      .def_property_readonly("_blob_names", [](const NetHandle& h) { return h.net->blob_names(); })
      .def("_blob",
           [](const NetHandle& h, const std::string& name) {
             Tensor* t = h.net->blob_by_name(name);
             if (t == nullptr) throw py::key_error("the net has no blob '" + name + "'");
             return Ref(h, t);
           })
      .def_property_readonly("_layer_names",
                             [](const NetHandle& h) { return h.net->layer_names(); })
      .def_property_readonly("_layer_types",
                             [](const NetHandle& h) {
                               std::vector<std::string> types;
                               for (const auto& l : h.net->layers()) types.push_back(l->type());
                               return types;
                             })
      .def("_layer_blobs",
           [](const NetHandle& h, int i) {
             CheckLayerRange(*h.net, i, i, "layer");
             std::vector<BlobRef> blobs;
             for (const auto& t : h.net->layers()[i]->blobs()) blobs.push_back(Ref(h, t.get()));
             return blobs;
           })
      .def("_python_layer",
           [](const NetHandle& h, int i) -> py::object {
             CheckLayerRange(*h.net, i, i, "layer");
             const auto* layer =
                 dynamic_cast<const pylayer::PythonLayer*>(h.net->layers()[i].get());
             PyObject* object = layer == nullptr ? nullptr : layer->python_object();
             if (object == nullptr) return py::none();
             return py::reinterpret_borrow<py::object>(object);
           })
      .def("_bottom_names",
           [](const NetHandle& h, int i) {
             CheckLayerRange(*h.net, i, i, "layer");
             return BlobNames(*h.net, h.net->bottom_ids()[i]);
           })
      .def("_top_names",
           [](const NetHandle& h, int i) {
             CheckLayerRange(*h.net, i, i, "layer");
             return BlobNames(*h.net, h.net->top_ids()[i]);
           })
      .def_property_readonly(
          "outputs",
          [](const NetHandle& h) { return BlobNames(*h.net, h.net->output_blob_indices()); })
      .def("_forward", [](NetHandle& h, int start,
                          int end) { return ForwardOnPlainValues(*h.net, start, end); })
      .def("_backward",
           [](NetHandle& h, int start, int end, bool prime_losses) {
             BackwardOnPlainValues(*h.net, start, end, prime_losses);
           })
      .def(
          "reshape",
          [](NetHandle& h) {
            Net& net = *h.net;
            for (size_t i = 0; i < net.layers().size(); ++i) {
              Layer& layer = *net.layers()[i];
              if (layer.absorbed()) continue;
              Status s;
              try {
                s = layer.Reshape(net.bottom_vecs()[i], net.top_vecs()[i]);
              } catch (const TensorShapeError& e) {
                s = InvalidArgument(e.what());
              }
              ThrowIfError(
                  s.WithContext("layer '" + net.layer_names()[i] + "' (" + layer.type() + ")"));
            }
          },
          "carries the shapes of reshaped input blobs through every layer")
      .def(
          "save",
          [](const NetHandle& h, const py::object& path) {
            SaveWeights(*h.net, PathArg(path, "save: path"));
          },
          py::arg("path"),
          "writes the parameters as a .caffemodel (a path ending .h5: Caffe's HDF5 weights)")
      .def(
          "export_onnx",
          [](const NetHandle& h, const py::object& path, int opset, bool dynamic_batch) {
            const std::string file = PathArg(path, "export_onnx: path");
            OnnxExportOptions options;
            options.opset = opset;
            options.dynamic_batch = dynamic_batch;
            options.producer_version = "dtrain Python module";
            const onnx::ModelProto model = ValueOrThrow(ExportOnnx(*h.net, options));
            ThrowIfError(WriteOnnxModel(model, file));
          },
          py::arg("path"), py::arg("opset") = kDefaultOpset, py::arg("dynamic_batch") = false,
          "writes the net (TEST phase) and its current parameters as an ONNX model, as `dtrain "
          "export onnx` does (docs/onnx.md)")
      .def(
          "_copy_from",
          [](NetHandle& h, const py::object& weights) {
            const std::string files = PathArg(weights, "copy_from: weights");
            ClaimPlainValues({h.net.get()}, false);
            ThrowIfError(LoadWeights(files, /*strict=*/false, h.net.get()));
          },
          py::arg("weights"),
          "copies parameters from .caffemodel files (comma-separated), layer by layer by name")
      .def(
          "share_with",
          [](NetHandle& h, const py::object& other) {
            if (!py::isinstance<NetHandle>(other)) {
              throw py::type_error("share_with: other must be a dtrain.Net, not " +
                                   TypeName(other));
            }
            ThrowIfError(h.net->ShareTrainedLayersWith(*other.cast<const NetHandle&>().net));
          },
          py::arg("other"), "makes this net's parameters those of other's layers of the same name");
}

}  // namespace dtrain::python
