// File paths from Python: whatever os.fspath accepts (str, bytes, os.PathLike), as the bytes the
// operating system sees. A str goes through the file system encoding with 'surrogateescape', as
// Python's own open() does, so a file name that is not UTF-8 works too. Anything else is a
// TypeError naming the argument and the type given; a NUL byte (no file has one) a ValueError.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace dtrain::python {

// `value` as a path; `what` names it in errors ("Net: model").
std::string PathArg(const pybind11::handle& value, const std::string& what);

// The name of `value`'s type, for messages ("int").
std::string TypeName(const pybind11::handle& value);

}  // namespace dtrain::python
