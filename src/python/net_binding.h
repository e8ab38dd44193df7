// dtrain.Net in Python: a net built from a prototxt for one phase, optionally with weights, or a
// solver's train or test net; pycaffe's surface (blobs, params, forward, backward, save) is
// completed in Python (src/python/dtrain/net.py) over the methods bound here.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "net/net.h"

namespace dtrain::python {

// A net as Python holds it: `net` is kept alive by what owns it (itself, or its solver).
struct NetHandle {
  std::shared_ptr<Net> net;
};

// Reads `model`, builds it for `phase` (TRAIN or TEST, with `level` and `stages` as a NetState),
// each blob keeping its own diff (NetParameter.keep_blob_diffs), and copies `weights` into it
// (comma-separated .caffemodel or .caffemodel.h5 files, as --weights).
NetHandle LoadNet(const std::string& model, Phase phase, const std::string& weights, int level,
                  const std::vector<std::string>& stages);

// Runs the net on the plain values Python sees (python/tensor_views.h).
float ForwardOnPlainValues(Net& net, int start, int end);
void BackwardOnPlainValues(Net& net, int start, int end, bool prime_losses);

void BindNet(pybind11::module_& module);

}  // namespace dtrain::python
