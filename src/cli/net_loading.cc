#include "cli/net_loading.h"

#include <map>

#include "core/logging.h"
#include "core/proto_io.h"

namespace dtrain {

StatusOr<std::unique_ptr<Net>> LoadNetForPhase(const std::string& model_path, Phase phase,
                                               const std::string& weights_path,
                                               const std::string& engine) {
  if (model_path.empty()) return InvalidArgument("--model is required");
  DT_RETURN_IF_ERROR(ParseEngine(engine).status().WithContext("--engine"));
  NetParameter param;
  DT_RETURN_IF_ERROR(ReadTextProto(model_path, &param));
  NetState state;
  state.set_phase(phase);
  DT_ASSIGN_OR_RETURN(std::unique_ptr<Net> net, Net::Create(param, state, 1701, engine));
  if (!weights_path.empty()) {
    NetParameter weights;
    DT_RETURN_IF_ERROR(ReadBinaryProto(weights_path, &weights));
    DT_RETURN_IF_ERROR(net->CopyTrainedLayersFrom(weights).WithContext(weights_path));
  }
  return net;
}

void LogEngineChoices(const Net& net, bool verbose) {
  std::map<std::string, int> counts;  // "onednn" / "reference" -> layers
  for (const auto& layer : net.layers()) {
    const std::string& report = layer->engine_report();
    if (report.empty()) continue;
    ++counts[report.substr(0, report.find(' '))];
    if (verbose) {
      DT_LOG(INFO) << "engine: " << net.name() << " / " << layer->name() << " ("
                   << layer->type() << "): " << report;
    }
  }
  std::string summary;
  for (const auto& [engine, n] : counts) {
    summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " on " + engine;
  }
  if (!summary.empty()) {
    DT_LOG(INFO) << "Net " << net.name() << " (" << (net.phase() == TRAIN ? "TRAIN" : "TEST")
                 << "): layers with a kernel choice: " << summary
                 << (verbose ? "" : " (--verbose lists them)");
  }
}

}  // namespace dtrain
