// dtrain's errors in Python: a Status that is not OK becomes dtrain.Error (a RuntimeError) with
// the Status's message (the file, layer or field it names).
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "core/status.h"

namespace dtrain::python {

// What the module raises as dtrain.Error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) throw Error(status.message());
}

template <typename T>
T ValueOrThrow(StatusOr<T> value) {
  ThrowIfError(value.status());
  return std::move(value).value();
}

// Registers dtrain.Error.
void BindErrors(pybind11::module_& module);

}  // namespace dtrain::python
