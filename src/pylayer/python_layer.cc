#include "pylayer/python_layer.h"

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "proto/net.pb.h"
#include "pylayer/blob_view.h"

namespace py = pybind11;

namespace dtrain::pylayer {

struct PythonLayer::Python {
  py::object self;
  py::list bottom, top;
  std::shared_ptr<LayerBlobs> blobs = std::make_shared<LayerBlobs>();
};

namespace {

// `text` as a str, bytes that are not UTF-8 written \xNN.
py::str Text(const std::string& text) {
  PyObject* s =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

// The exception being handled as Python prints it: the traceback, then the exception.
std::string Traceback(py::error_already_set& e) {
  try {
    py::list lines =
        py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
    std::string text;
    for (const py::handle& line : lines) {
      text += py::reinterpret_borrow<py::str>(line)
                  .attr("encode")("utf-8", "backslashreplace")
                  .cast<std::string>();
    }
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  } catch (const std::exception&) {
    PyErr_Clear();
    return e.what();
  }
}

py::list Blobs(const TensorVec& tensors) {
  py::list list;
  for (Tensor* t : tensors) list.append(py::cast(BlobRef{nullptr, t}));
  return list;
}

}  // namespace

PythonLayer::PythonLayer(const LayerParameter& param, const LayerContext& context)
    : Layer(param, context) {}

PyObject* PythonLayer::python_object() const { return py_ ? py_->self.ptr() : nullptr; }

PythonLayer::~PythonLayer() {
  if (!py_) return;
  py::gil_scoped_acquire gil;
  py_->blobs->blobs = nullptr;  // a blob list Python kept refuses use from now on
  py_.reset();
}

// Runs `body` under the GIL; a Python exception becomes this layer's error with its traceback,
// `what` saying which call raised it, and a C++ exception (what `body` found wrong, or a value
// Python gave that C++ cannot take) with its message.
template <typename Body>
static Status CallPython(const Layer& layer, const std::string& what, Body&& body) {
  py::gil_scoped_acquire gil;
  const PythonParameter& p = layer.layer_param().python_param();
  const std::string where = "python_param " + p.module() + "." + p.layer() + ": " + what;
  try {
    body();
    return Status::Ok();
  } catch (py::error_already_set& e) {
    return InvalidArgument("layer '" + layer.name() + "' (Python): " + where + " raised\n" +
                           Traceback(e));
  } catch (const std::exception& e) {  // what dtrain found wrong (a missing module or class)
    return InvalidArgument("layer '" + layer.name() + "' (Python): python_param " + p.module() +
                           "." + p.layer() + ": " + e.what());
  }
}

Status PythonLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const PythonParameter& p = param_.python_param();
  if (p.module().empty() || p.layer().empty()) {
    return Error("python_param needs module and layer (the Python module and its class)");
  }
  py::object cls;
  const Status found = CallPython(*this, "import", [&] {
    py_ = std::make_unique<Python>();
    py::module_ module;
    try {
      module = py::module_::import(p.module().c_str());
    } catch (py::error_already_set& e) {
      throw py::import_error("cannot import module '" + p.module() +
                             "' (Python finds it on PYTHONPATH, as Caffe's does):\n" +
                             Traceback(e));
    }
    if (!py::hasattr(module, p.layer().c_str())) {
      py::object file = py::getattr(module, "__file__", py::none());
      throw py::attribute_error("module '" + p.module() + "' (" +
                                py::str(file).cast<std::string>() + ") has no class '" + p.layer() +
                                "'");
    }
    cls = module.attr(p.layer().c_str());
  });
  DT_RETURN_IF_ERROR(found);
  return CallPython(*this, "setup", [&] {
    py::object types = py::module_::import("types");
    py::object python_param = types.attr("SimpleNamespace")(
        py::arg("module") = Text(p.module()), py::arg("layer") = Text(p.layer()),
        py::arg("param_str") = Text(p.param_str()),
        py::arg("share_in_parallel") = p.share_in_parallel());
    py::list bottoms, tops;
    for (const std::string& b : param_.bottom()) bottoms.append(Text(b));
    for (const std::string& t : param_.top()) tops.append(Text(t));
    py::object param = types.attr("SimpleNamespace")(
        py::arg("name") = Text(param_.name()), py::arg("type") = "Python",
        py::arg("bottom") = bottoms, py::arg("top") = tops,
        py::arg("phase") = static_cast<int>(phase_), py::arg("python_param") = python_param);
    py_->self = cls(param);
    py_->bottom = Blobs(bottom);
    py_->top = Blobs(top);
    py_->blobs->blobs = &blobs_;
    py_->blobs->may_add = true;
    py_->self.attr("param_str") = Text(p.param_str());
    py_->self.attr("phase") = static_cast<int>(phase_);
    py_->self.attr("blobs") = py::cast(py_->blobs);
    py_->self.attr("setup")(py_->bottom, py_->top);
    py_->blobs->may_add = false;
  });
}

Status PythonLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  reshaped_ = true;
  return CallPython(*this, "reshape", [&] { py_->self.attr("reshape")(py_->bottom, py_->top); });
}

Status PythonLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  // Caffe reshapes before every forward; the base did when the bottom shapes changed.
  if (!reshaped_) DT_RETURN_IF_ERROR(Reshape(bottom, top));
  reshaped_ = false;
  return CallPython(*this, "forward", [&] { py_->self.attr("forward")(py_->bottom, py_->top); });
}

void PythonLayer::BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                               const TensorVec& bottom) {
  for (size_t i = 0; i < bottom.size(); ++i) {
    if (propagate_down[i]) bottom[i]->SetDiff(0.f);
  }
  Status status = CallPython(*this, "backward", [&] {
    py::list down;
    for (size_t i = 0; i < bottom.size(); ++i) down.append(py::bool_(propagate_down[i]));
    py_->self.attr("backward")(py_->top, down, py_->bottom);
  });
  if (!status.ok()) FailBackward(std::move(status));
}

}  // namespace dtrain::pylayer
