#include "python/path_args.h"

namespace py = pybind11;

namespace dtrain::python {

std::string TypeName(const py::handle& value) { return Py_TYPE(value.ptr())->tp_name; }

std::string PathArg(const py::handle& value, const std::string& what) {
  PyObject* path = PyOS_FSPath(value.ptr());
  if (path == nullptr) {
    PyErr_Clear();
    throw py::type_error(what + " must be a path (str, bytes or os.PathLike), not " +
                         TypeName(value));
  }
  py::object bytes = py::reinterpret_steal<py::object>(path);
  if (PyUnicode_Check(path)) {
    bytes = py::reinterpret_steal<py::object>(PyUnicode_EncodeFSDefault(path));
    if (!bytes) throw py::error_already_set();
  }
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(bytes.ptr(), &data, &size) != 0) throw py::error_already_set();
  std::string text(data, static_cast<size_t>(size));
  if (text.find('\0') != std::string::npos) {
    throw py::value_error(what + " contains a NUL byte");
  }
  return text;
}

}  // namespace dtrain::python
