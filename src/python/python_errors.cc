#include "python/python_errors.h"

#include <cstring>
#include <exception>

namespace py = pybind11;

namespace dtrain::python {

namespace {

// dtrain.Error's type object (the module holds it as long as the interpreter runs).
PyObject* error_type = nullptr;

// Raises `type` with `message` decoded as UTF-8, any other byte as \xNN.
void Raise(PyObject* type, const char* message) {
  PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)),
                                        "backslashreplace");
  if (text == nullptr) {  // only when out of memory
    PyErr_Clear();
    PyErr_SetNone(type);
    return;
  }
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

}  // namespace

void BindErrors(py::module_& m) {
  error_type = py::exception<Error>(m, "Error", PyExc_RuntimeError).release().ptr();
  // Module-local: tried before pybind11's own translators, which would decode strictly.
  py::register_local_exception_translator([](std::exception_ptr thrown) {
    if (!thrown) return;
    try {
      std::rethrow_exception(thrown);
    } catch (const Error& e) {
      Raise(error_type, e.what());
    } catch (const py::value_error& e) {
      Raise(PyExc_ValueError, e.what());
    } catch (const py::key_error& e) {
      Raise(PyExc_KeyError, e.what());
    } catch (const py::index_error& e) {
      Raise(PyExc_IndexError, e.what());
    } catch (const py::type_error& e) {
      Raise(PyExc_TypeError, e.what());
    }
  });
}

}  // namespace dtrain::python
