// dtrain's errors in Python: a Status that is not OK becomes dtrain.Error (a RuntimeError) with
// the Status's message (the file, layer or field it names).
//
// Messages carry bytes from the user's files (a prototxt's text, a layer's name, a path), which
// need not be UTF-8: every exception the module raises from C++ (dtrain.Error, and pybind11's
// ValueError, KeyError, IndexError and TypeError) turns its message into a str with each byte
// that is not UTF-8 written as \xNN (Python's 'backslashreplace'), so no message is ever lost.
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

// Registers dtrain.Error, and the translation of the module's C++ exceptions described above.
void BindErrors(pybind11::module_& module);

}  // namespace dtrain::python
