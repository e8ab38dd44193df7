// dtrain export onnx: a net's TEST phase with its weights as an ONNX model (export/onnx_export.h),
// checked by ONNX's checker and written atomically, so a failed export leaves OUTPUT as it was.
#include <algorithm>

#include "cli/command.h"
#include "core/logging.h"
#include "core/output_guard.h"
#include "export/onnx_export.h"
#include "proto/net.pb.h"
#include "solver/net_loading.h"

namespace dtrain {
namespace {

NetState TestState() {
  NetState state;
  state.set_phase(TEST);
  return state;
}

Status RunExportOnnx(const Flags& flags) {
  const std::string model = flags.Get("model");
  const std::string output = flags.Get("output");
  if (model.empty()) return InvalidArgument("--model=deploy.prototxt is required");
  if (output.empty()) return InvalidArgument("--output=model.onnx is required");
  if (!flags.positional().empty()) {
    return InvalidArgument("unexpected argument '" + flags.positional()[0] + "'");
  }
  OnnxExportOptions options;
  DT_ASSIGN_OR_RETURN(options.opset, flags.GetInt("opset"));
  options.producer_version = DtrainVersion();
  options.dynamic_batch = flags.GetBool("dynamic-batch");
  const std::string weights = flags.Get("weights");
  std::vector<NamedPath> inputs = {{"the --model", model}};
  for (size_t start = 0; start <= weights.size();) {
    const size_t comma = std::min(weights.find(',', start), weights.size());
    inputs.push_back({"a --weights file", weights.substr(start, comma - start)});
    start = comma + 1;
  }
  DT_RETURN_IF_ERROR(RefuseOutputOverInput("--output", output, inputs));
  if (weights.empty()) {
    DT_LOG(WARNING) << "No --weights: the model holds the net's initial (filler) values";
  }
  DT_ASSIGN_OR_RETURN(
      std::unique_ptr<Net> net,
      LoadNetForPhase(model, TestState(), weights, flags.GetBool("weights-strict"), ""));
  DT_ASSIGN_OR_RETURN(const onnx::ModelProto onnx_model, ExportOnnx(*net, options));
  DT_RETURN_IF_ERROR(WriteOnnxModel(onnx_model, output));
  const OnnxModelSummary s = Summarize(onnx_model);
  DT_LOG(INFO) << "Wrote " << output << " (ONNX opset " << options.opset << ", " << s.nodes
               << " nodes, " << s.parameters << " parameters, " << onnx_model.ByteSizeLong()
               << " bytes)";
  DT_LOG(INFO) << "  inputs: " << s.inputs;
  DT_LOG(INFO) << "  outputs: " << s.outputs;
  return Status::Ok();
}

}  // namespace

CommandGroup ExportCommands() {
  return {
      "export",
      "write a trained net in another format for deployment",
      {{"onnx",
        "the TEST phase of a net and its weights as an ONNX model, checked by ONNX's checker",
        "",
        {{"model", "the net prototxt (a deploy net: Input layers, no losses)"},
         {"weights", "trained weights (.caffemodel or .h5; comma-separated: later files win)"},
         {"weights-strict", "fail if a layer's parameters have no weights in the file", true},
         {"output", "the .onnx file to write"},
         {"dynamic-batch",
          "leave the first axis of inputs and outputs open (\"batch\") instead of the net's", true},
         {"opset",
          "ONNX opset version, " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset),
          false, std::to_string(kDefaultOpset)}},
        RunExportOnnx}}};
}

}  // namespace dtrain
