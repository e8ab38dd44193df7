// ONNX export: a built Net (its TEST phase, with its weights) as an ONNX model, written through
// ONNX's own schema (Debian's libonnx: onnx_pb.h) and passed by ONNX's checker and shape
// inference before it is returned.
//
// The graph's inputs are the net's Input layers' tops (a deploy net's `input:` fields become
// Input layers when it is read), with the shapes the net was built with; its outputs are the
// blobs no layer consumes, named as the blobs. Each layer becomes the nodes of its type's
// exporter (onnx_layer_export.h); a layer that reads a data source, a loss or accuracy layer, or
// any other layer with no exact ONNX equivalent is an error naming it. Values are float32; the
// opset is one of kMinOpset..kMaxOpset (the operators used keep their meaning across them).
#pragma once

#include <string>

#include "core/status.h"
#include "net/net.h"
#include "onnx/onnx_pb.h"

namespace dtrain {

constexpr int kMinOpset = 13;  // Softmax over one axis, Squeeze/ReduceSum axes as inputs
constexpr int kMaxOpset = 17;  // the newest Debian's ONNX (1.12) checks
constexpr int kDefaultOpset = 13;

struct OnnxExportOptions {
  int opset = kDefaultOpset;
  // The inputs' and outputs' first axis is a symbolic "batch" (every input's first axis must be
  // the batch); layers working along it are refused.
  bool dynamic_batch = false;
  std::string producer_version;  // dtrain's version, recorded in the model
};

// What an exported model holds, for the command's report.
struct OnnxModelSummary {
  int nodes = 0, initializers = 0;
  int64_t parameters = 0;       // float values in initializers
  std::string inputs, outputs;  // "data 10x3x227x227, ..."
};

// `net` must be built for the TEST phase (dtrain export onnx and Python's net.export_onnx).
StatusOr<onnx::ModelProto> ExportOnnx(const Net& net, const OnnxExportOptions& options);
// Writes `model` to `path` atomically (an existing file stays as it was on failure); a model over
// protobuf's 2 GiB message limit is refused.
Status WriteOnnxModel(const onnx::ModelProto& model, const std::string& path);
OnnxModelSummary Summarize(const onnx::ModelProto& model);

}  // namespace dtrain
