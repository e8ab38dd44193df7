// _dtrain: the C++ half of the `dtrain` Python package (src/python/dtrain/).
#include <pybind11/pybind11.h>

#include "kernels/compute_threads.h"
#include "pylayer/blob_view.h"
#include "pylayer/python_layers.h"
#include "python/io_binding.h"
#include "python/net_binding.h"
#include "python/python_errors.h"
#include "python/solver_binding.h"
#include "python/tensor_views.h"

namespace py = pybind11;

PYBIND11_MODULE(_dtrain, m) {
  m.doc() = "dtrain's nets, solvers and files (the C++ half of the dtrain package)";
  // As `dtrain train` starts: its default threads, and denormals flushed on this thread and the
  // compute threads (kernels/compute_threads.h), so that results equal the command's.
  dtrain::kernels::SetComputeThreads(dtrain::kernels::DefaultComputeThreads().threads);
  dtrain::python::BindErrors(m);
  dtrain::pylayer::BindBlobTypes(m);
  // Nets built from Python run their Python layers in this interpreter.
  dtrain::pylayer::InstallPythonLayers(dtrain::pylayer::Interpreter::kRunning);
  dtrain::python::BindNet(m);
  dtrain::python::BindSolver(m);
  py::module_ io = m.def_submodule("_io", "Caffe's files and records as NumPy arrays");
  dtrain::python::BindIo(io);
  m.def(
      "set_threads",
      [](int threads) {
        if (threads <= 0) throw py::value_error("set_threads: threads must be positive");
        dtrain::kernels::SetComputeThreads(threads);
      },
      py::arg("threads"),
      "the threads dtrain computes on (oneDNN's and OpenBLAS's); changes speed, and with oneDNN's "
      "kernels the last bits of results");
}
