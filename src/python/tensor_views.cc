#include "python/tensor_views.h"

#include <pybind11/stl.h>

#include <string>

#include "python/path_args.h"
#include "python/python_errors.h"

namespace py = pybind11;

namespace dtrain::python {

namespace {

// What an array's capsule keeps alive: the net (or solver) the tensor belongs to, as documented,
// and the buffer itself, which outlives any reallocation of the tensor (core/tensor.h, "Held
// buffers").
struct ArrayKeep {
  Owner owner;
  std::shared_ptr<float> values;
};

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

namespace {

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
std::vector<int> ReshapeDims(const py::args& args) {
  py::sequence dims = args;
  if (args.size() == 1 &&
      (py::isinstance<py::tuple>(args[0]) || py::isinstance<py::list>(args[0]))) {
    dims = py::reinterpret_borrow<py::sequence>(args[0]);
  }
  std::vector<int> shape;
  for (const py::handle& d : dims) {
    if (!PyIndex_Check(d.ptr())) {
      throw py::type_error("Blob.reshape: dimensions must be integers, not " + TypeName(d) + " (" +
                           py::repr(d).cast<std::string>() + ")");
    }
    const py::int_ value = py::reinterpret_steal<py::int_>(PyNumber_Index(d.ptr()));
    if (!value) throw py::error_already_set();
    if (value < py::int_(0) || value > py::int_(0x7fffffff)) {
      throw py::value_error("Blob.reshape: dimension " + py::repr(value).cast<std::string>() +
                            " is not in [0, 2^31 - 1]");
    }
    shape.push_back(value.cast<int>());
  }
  return shape;
}

template <typename Visit>
void ForEachTensor(const std::vector<Net*>& nets, Visit visit) {
  for (Net* net : nets) {
    for (size_t i = 0; i < net->blob_names().size(); ++i) visit(net->blob(static_cast<int>(i)));
    for (const auto& layer : net->layers()) {
      for (const auto& param : layer->blobs()) visit(param.get());
    }
  }
}

}  // namespace

void ClaimPlainValues(const std::vector<Net*>& nets, bool diffs) {
  ForEachTensor(nets, [diffs](Tensor* t) {
    if (t->count() == 0) return;
    t->mutable_data();
    if (diffs) t->mutable_diff();
  });
}

void PublishPlainValues(const std::vector<Net*>& nets, bool diffs) {
  ForEachTensor(nets, [diffs](Tensor* t) {
    if (t->count() == 0) return;
    const Tensor& values = *t;
    values.data();
    if (diffs) values.diff();
  });
}

void BindBlob(py::module_& m) {
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
            const std::vector<int> shape = ReshapeDims(dims);
            try {
              b.tensor->Reshape(shape);
            } catch (const TensorShapeError& e) {
              throw py::value_error(std::string("Blob.reshape: ") + e.what());
            }
          },
          "reshape(*dims): new dimensions (then Net.reshape() to carry them through the net)");
}

}  // namespace dtrain::python
