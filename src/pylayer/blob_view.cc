#include "pylayer/blob_view.h"

#include <pybind11/stl.h>

#include <string>

namespace py = pybind11;

namespace dtrain::pylayer {

namespace {

// What an array's capsule keeps alive: the owner of the tensor, as documented, and the buffer
// itself, which outlives any reallocation of the tensor (core/tensor.h, "Held buffers").
struct ArrayKeep {
  Owner owner;
  std::shared_ptr<float> values;
};

std::string TypeName(const py::handle& value) { return Py_TYPE(value.ptr())->tp_name; }

// Caffe's num/channels/height/width: axis `axis` of a blob of at most 4 axes, 1 beyond its axes.
int LegacyDim(const Tensor& t, int axis) {
  if (t.num_axes() > 4) {
    throw py::value_error(
        "num/channels/height/width are for blobs of at most 4 axes; this one is " +
        t.ShapeString() + ": use shape");
  }
  return axis < t.num_axes() ? t.shape(axis) : 1;
}

// Blob.reshape's arguments: the dimensions, or one tuple or list of them (as NumPy's reshape
// takes either), each an integer (anything with __index__) in [0, 2^31 - 1].
std::vector<int> ReshapeDims(const py::args& args, const char* what) {
  py::sequence dims = args;
  if (args.size() == 1 &&
      (py::isinstance<py::tuple>(args[0]) || py::isinstance<py::list>(args[0]))) {
    dims = py::reinterpret_borrow<py::sequence>(args[0]);
  }
  std::vector<int> shape;
  for (const py::handle& d : dims) {
    if (!PyIndex_Check(d.ptr())) {
      throw py::type_error(std::string(what) + ": dimensions must be integers, not " + TypeName(d) +
                           " (" + py::repr(d).cast<std::string>() + ")");
    }
    const py::int_ value = py::reinterpret_steal<py::int_>(PyNumber_Index(d.ptr()));
    if (!value) throw py::error_already_set();
    if (value < py::int_(0) || value > py::int_(0x7fffffff)) {
      throw py::value_error(std::string(what) + ": dimension " +
                            py::repr(value).cast<std::string>() + " is not in [0, 2^31 - 1]");
    }
    shape.push_back(value.cast<int>());
  }
  return shape;
}

// Reshapes `tensor`, a refused size (core/tensor.h) as ValueError.
void ReshapeOrThrow(Tensor& tensor, const std::vector<int>& shape, const char* what) {
  try {
    tensor.Reshape(shape);
  } catch (const TensorShapeError& e) {
    throw py::value_error(std::string(what) + ": " + e.what());
  }
}

// The parameters of a layer that still exists.
std::vector<std::shared_ptr<Tensor>>& Live(const LayerBlobs& l) {
  if (l.blobs == nullptr) throw py::value_error("blobs of a Python layer that no longer exists");
  return *l.blobs;
}

}  // namespace

py::array ValuesView(const BlobRef& blob, bool diff) {
  Tensor& t = *blob.tensor;
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  if (t.count() == 0) return py::array_t<float>(shape);
  // Writable access: it makes the plain copy the only current one, so what Python writes counts.
  std::shared_ptr<float> values = diff ? t.HoldMutableDiff() : t.HoldMutableData();
  float* first = values.get();
  auto* keep = new ArrayKeep{blob.owner, std::move(values)};
  py::capsule keep_alive(keep, [](void* p) { delete static_cast<ArrayKeep*>(p); });
  return py::array_t<float>(shape, first, keep_alive);
}

void BindBlobTypes(py::module_& m) {
  py::class_<BlobRef>(m, "Blob",
                      "A tensor of a net (Caffe's Blob): data and diff as NumPy arrays over its "
                      "storage")
      .def_property_readonly(
          "data", [](const BlobRef& b) { return ValuesView(b, false); },
          "the values, a float32 array viewing the blob (write into it with [...] =)")
      .def_property_readonly(
          "diff", [](const BlobRef& b) { return ValuesView(b, true); },
          "the gradient, a float32 array viewing the blob")
      .def_property_readonly("shape",
                             [](const BlobRef& b) {
                               const std::vector<int>& s = b.tensor->shape();
                               return py::tuple(py::cast(std::vector<int>(s.begin(), s.end())));
                             })
      .def_property_readonly("count", [](const BlobRef& b) { return b.tensor->count(); })
      .def_property_readonly("num", [](const BlobRef& b) { return LegacyDim(*b.tensor, 0); })
      .def_property_readonly("channels", [](const BlobRef& b) { return LegacyDim(*b.tensor, 1); })
      .def_property_readonly("height", [](const BlobRef& b) { return LegacyDim(*b.tensor, 2); })
      .def_property_readonly("width", [](const BlobRef& b) { return LegacyDim(*b.tensor, 3); })
      .def(
          "reshape",
          [](BlobRef& b, const py::args& dims) {
            ReshapeOrThrow(*b.tensor, ReshapeDims(dims, "Blob.reshape"), "Blob.reshape");
          },
          "reshape(*dims): new dimensions (then Net.reshape() to carry them through the net)");
  py::class_<LayerBlobs, std::shared_ptr<LayerBlobs>>(
      m, "LayerBlobs", "a Python layer's learnable parameters (self.blobs)")
      .def("__len__", [](const LayerBlobs& l) { return Live(l).size(); })
      .def("__getitem__",
           [](const LayerBlobs& l, py::ssize_t i) {
             Live(l);
             const auto n = static_cast<py::ssize_t>(l.blobs->size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("layer blob index out of range");
             return BlobRef{nullptr, (*l.blobs)[static_cast<size_t>(i)].get()};
           })
      .def(
          "add_blob",
          [](LayerBlobs& l, const py::args& dims) {
            if (!l.may_add) {
              throw py::value_error(
                  "blobs.add_blob: parameters are added in setup, before the net registers them");
            }
            Live(l);
            auto tensor = std::make_shared<Tensor>();
            ReshapeOrThrow(*tensor, ReshapeDims(dims, "blobs.add_blob"), "blobs.add_blob");
            l.blobs->push_back(std::move(tensor));
          },
          "add_blob(*dims): a new learnable parameter of zeros (in setup)");
}

}  // namespace dtrain::pylayer
