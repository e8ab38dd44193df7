#include "python/tensor_views.h"

#include <pybind11/stl.h>

#include <string>

#include "python/python_errors.h"

namespace py = pybind11;

namespace dtrain::python {

py::array ValuesView(const BlobRef& blob, bool diff) {
  Tensor& t = *blob.tensor;
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  // Writable access: it makes the plain copy the only current one, so what Python writes counts.
  float* values = diff ? t.mutable_diff() : t.mutable_data();
  if (t.count() == 0 || values == nullptr) return py::array_t<float>(shape);
  auto* owner = new Owner(blob.owner);
  py::capsule keep_alive(owner, [](void* p) { delete static_cast<Owner*>(p); });
  return py::array_t<float>(shape, values, keep_alive);
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
          [](BlobRef& b, py::args dims) {
            std::vector<int> shape;
            for (const py::handle& d : dims) {
              const long long v = d.cast<long long>();
              if (v < 0 || v > 0x7fffffff) {
                throw py::value_error("Blob.reshape: dimension " + std::to_string(v) +
                                      " is not in [0, 2^31 - 1]");
              }
              shape.push_back(static_cast<int>(v));
            }
            try {
              b.tensor->Reshape(shape);
            } catch (const TensorShapeError& e) {
              throw py::value_error(std::string("Blob.reshape: ") + e.what());
            }
          },
          "reshape(*dims): new dimensions (then Net.reshape() to carry them through the net)");
}

}  // namespace dtrain::python
