// dtrain.io's C++ half: Caffe's files and records as NumPy arrays. Mean files (.binaryproto
// BlobProto), Datum records (encoded JPEG/PNG ones decoded) and the records of an LMDB.
#pragma once

#include <pybind11/pybind11.h>

namespace dtrain::python {

void BindIo(pybind11::module_& module);

}  // namespace dtrain::python
