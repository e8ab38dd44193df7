#include "solver/net_loading.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/logging.h"
#include "core/proto_io.h"
#include "net/read_net.h"
#include "solver/hdf5_snapshot.h"

namespace dtrain {

std::string DescribeNetState(const NetState& state) {
  std::string text = state.phase() == TRAIN ? "phase TRAIN" : "phase TEST";
  for (int i = 0; i < state.stage_size(); ++i) {
    text += (i == 0 ? ", stages '" : ", '") + state.stage(i) + "'";
  }
  if (state.level() != 0) text += ", level " + std::to_string(state.level());
  return text;
}

StatusOr<std::unique_ptr<Net>> LoadNetForPhase(const std::string& model_path, const NetState& state,
                                               const std::string& weights, bool weights_strict,
                                               const std::string& engine) {
  if (model_path.empty()) return InvalidArgument("--model is required");
  DT_RETURN_IF_ERROR(ParseEngine(engine).status().WithContext("--engine"));
  DT_ASSIGN_OR_RETURN(const NetParameter param, ReadNetParameter(model_path));
  StatusOr<std::unique_ptr<Net>> built = Net::Create(param, state, 1701, engine);
  if (!built.ok()) {
    return built.status().WithContext(model_path + " (" + DescribeNetState(state) + ")");
  }
  std::unique_ptr<Net> net = std::move(*built);
  if (!weights.empty()) DT_RETURN_IF_ERROR(LoadWeights(weights, weights_strict, net.get()));
  return net;
}

namespace {

std::string Quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

}  // namespace

Status LoadWeights(const std::string& list, bool strict, Net* net) {
  std::set<std::string> copied;
  std::vector<std::string> ignored;  // "'ip2' (in w.caffemodel)"
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string path =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (path.empty()) {
      return InvalidArgument("--weights '" + list +
                             "' holds an empty file name (the list is "
                             "comma-separated .caffemodel paths)");
    }
    {
      DT_ASSIGN_OR_RETURN(const NetParameter weights, ReadWeightsFile(path));
      WeightsMatch match;
      DT_RETURN_IF_ERROR(net->CopyTrainedLayersFrom(weights, &match).WithContext(path));
      if (match.copied.empty()) {
        return InvalidArgument(path +
                               ": no layer of this weights file has a namesake with "
                               "parameters in the net, so it would copy nothing (is it another "
                               "net's file?); its layers with parameters: " +
                               (match.ignored_with_params.empty()
                                    ? std::string("none")
                                    : Quoted(match.ignored_with_params)));
      }
      DT_LOG(INFO) << "Copied weights from " << path << ": " << match.copied.size()
                   << " layer(s) with parameters";
      copied.insert(match.copied.begin(), match.copied.end());
      for (const std::string& name : match.ignored_with_params) {
        DT_LOG(WARNING) << path << ": ignoring source layer '" << name
                        << "' and its parameters: the net has no layer of that name";
        ignored.push_back("'" + name + "' (in " + path + ")");
      }
      if (!match.ignored_without_params.empty()) {
        DT_LOG(INFO) << path << ": ignoring source layers without parameters that the net does "
                     << "not have: " << Quoted(match.ignored_without_params);
      }
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // A layer that shares (aliases) the parameters of a copied layer was initialised with it.
  std::set<const Tensor*> initialised;
  for (const std::string& name : copied) {
    for (const auto& blob : net->layer_by_name(name)->blobs()) initialised.insert(blob.get());
  }
  std::vector<std::string> uninitialised;
  for (size_t i = 0; i < net->layers().size(); ++i) {
    const Layer& layer = *net->layers()[i];
    const bool all_initialised =
        std::all_of(layer.blobs().begin(), layer.blobs().end(),
                    [&](const auto& blob) { return initialised.count(blob.get()) > 0; });
    if (all_initialised) continue;
    DT_LOG(WARNING) << "layer '" << net->layer_names()[i] << "' (" << layer.type()
                    << ") keeps its initialisation: no weights file has a layer of that name";
    uninitialised.push_back(net->layer_names()[i]);
  }
  if (strict && (!ignored.empty() || !uninitialised.empty())) {
    std::string what;
    if (!ignored.empty()) {
      what = "source layer(s) with parameters the net has no layer for: ";
      for (size_t i = 0; i < ignored.size(); ++i) what += (i ? ", " : "") + ignored[i];
    }
    if (!uninitialised.empty()) {
      what += (what.empty() ? "" : "; ") +
              std::string("layer(s) with parameters no weights file initialises: ") +
              Quoted(uninitialised);
    }
    return InvalidArgument("--weights-strict: the weights do not match the net by layer name: " +
                           what);
  }
  return Status::Ok();
}

void LogEngineChoices(const Net& net, bool verbose) {
  std::map<std::string, int> counts;  // "onednn" / "reference" -> layers
  for (const auto& layer : net.layers()) {
    const std::string& report = layer->engine_report();
    if (report.empty()) continue;
    ++counts[report.substr(0, report.find(' '))];
    if (verbose) {
      DT_LOG(INFO) << "engine: " << net.name() << " / " << layer->name() << " (" << layer->type()
                   << "): " << report;
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
