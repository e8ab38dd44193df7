// dtrain.SGDSolver (and the other update rules) and dtrain.get_solver in Python: a solver from a
// solver prototxt, as pycaffe's: step(n), solve(), snapshot(), restore(), its train net and test
// nets as dtrain.Net objects sharing its lifetime.
#pragma once

#include <pybind11/pybind11.h>

namespace dtrain::python {

void BindSolver(pybind11::module_& module);

}  // namespace dtrain::python
