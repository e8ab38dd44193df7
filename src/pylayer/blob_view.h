// How Python sees a tensor: pycaffe's Blob, whose `data` and `diff` are NumPy float32 arrays over
// the tensor's own plain (row-major) buffer, no copy, taken afresh on each access (so a reshape is
// seen), with `shape`, `count`, `num`/`channels`/`height`/`width` and `reshape(*dims)`.
//
// One class serves both places Python meets tensors: the blobs of a net in `import dtrain`
// (src/python/) and the bottoms, tops and parameters handed to a Python layer (python_layer.h).
// An array holds the buffer it views (Tensor::HoldMutableData, core/tensor.h) and the `owner` of
// the tensor (the net or solver, or nothing for a layer's blobs, which the net outlives), so the
// memory is never freed or reused while the array lives. Taking an array makes the plain copy
// the tensor's only current one (a kernel layout converts back first), so what Python reads is
// the current value and what it writes counts. Calls need the GIL.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "core/tensor.h"

namespace dtrain::pylayer {

// What keeps a tensor's storage alive: the Net, or the Solver owning it (may be empty).
using Owner = std::shared_ptr<const void>;

// A tensor, as Python's Blob.
struct BlobRef {
  Owner owner;
  Tensor* tensor = nullptr;
};

// A Python layer's learnable parameters (Caffe's `self.blobs`): the layer's own list, to which
// `add_blob(*dims)` appends a zero-filled tensor during setup.
struct LayerBlobs {
  std::vector<std::shared_ptr<Tensor>>* blobs = nullptr;
  bool may_add = false;  // only during setup: the net registers parameters after it
};

// The tensor's data (diff with `diff`) as a float32 array of its shape, viewing its storage.
pybind11::array ValuesView(const BlobRef& blob, bool diff);

// Registers Blob and the layer's blob list in `module`, once per interpreter.
void BindBlobTypes(pybind11::module_& module);

}  // namespace dtrain::pylayer
