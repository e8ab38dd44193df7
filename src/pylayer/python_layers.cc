#include "pylayer/python_layers.h"

#include <pybind11/pybind11.h>

#include <cstdlib>
#include <memory>
#include <mutex>

#include "layers/registry.h"
#include "pylayer/blob_view.h"
#include "pylayer/python_layer.h"

namespace py = pybind11;

namespace dtrain::pylayer {

namespace {

// At exit: what Python code printed reaches its file even through a pipe (the interpreter is
// never finalised, python_layers.h).
void FlushPythonOutput() {
  PyGILState_STATE state = PyGILState_Ensure();
  for (const char* name : {"stdout", "stderr"}) {
    PyObject* file = PySys_GetObject(name);  // borrowed
    if (file == nullptr || file == Py_None) continue;
    PyObject* result = PyObject_CallMethod(file, "flush", nullptr);
    Py_XDECREF(result);
    PyErr_Clear();
  }
  PyGILState_Release(state);
}

void StartInterpreter() {
  if (Py_IsInitialized()) return;
  Py_InitializeEx(0);  // 0: no signal handlers of Python's
  {
    py::module_ marker =
        py::reinterpret_borrow<py::module_>(PyImport_AddModule("_dtrain_embedded"));
    BindBlobTypes(marker);
    py::list argv;
    argv.append("dtrain");
    py::module_::import("sys").attr("argv") = argv;
  }
  std::atexit(FlushPythonOutput);
  PyEval_SaveThread();  // the GIL is taken by each call into Python
}

}  // namespace

void InstallPythonLayers(Interpreter interpreter) {
  const bool start = interpreter == Interpreter::kStartOnFirstLayer;
  SetPythonLayerFactory([start](const LayerParameter& param, const LayerContext& context) {
    if (start) {
      static std::once_flag once;
      std::call_once(once, StartInterpreter);
    }
    return std::unique_ptr<Layer>(std::make_unique<PythonLayer>(param, context));
  });
}

}  // namespace dtrain::pylayer
