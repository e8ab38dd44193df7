// How Python sees dtrain's tensors: NumPy arrays over a tensor's own plain (row-major) buffer, no
// copy. An array holds that buffer (Tensor::HoldMutableData, core/tensor.h) and the net or solver
// the tensor belongs to, so the memory it views is never freed or reused while the array (or a
// view of it) lives, whatever happens to the tensor or the net.
//
// A tensor may hold its current values in a kernel layout only (core/tensor.h), and NumPy sees
// the plain buffer alone, so the module keeps pycaffe's rule that the arrays are the values:
// before it runs a net (forward, backward, solver steps) it makes the plain copy the only current
// one (what Python wrote counts), and after, the plain copy current again (what Python reads is
// the result). An array is good until the net is reshaped or run again: take `.data` again then.
// An older array is stale: it may still view the tensor, or, where the tensor moved to another
// buffer (a reshape that grew it, a layer that swapped it, share_with), a buffer of its own,
// detached: it keeps the values it last saw, and writing into it changes nothing else.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "core/tensor.h"
#include "net/net.h"
#include "pylayer/blob_view.h"

namespace dtrain::python {

// The Blob class and the arrays it gives (pylayer/blob_view.h, shared with Python layers).
using pylayer::BlobRef;
using pylayer::Owner;
using pylayer::ValuesView;

// Every blob and layer parameter of the nets: before running them, the plain copies become the
// only current ones (data, and diffs with `diffs`)...
void ClaimPlainValues(const std::vector<Net*>& nets, bool diffs);
// ... and after, the plain copies are brought up to date.
void PublishPlainValues(const std::vector<Net*>& nets, bool diffs);

}  // namespace dtrain::python
