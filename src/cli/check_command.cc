// dtrain check: parse and validate a net or solver without training. Prints, per phase, a table
// of layers with top shapes, parameter counts and forward FLOPs where the shapes can be known
// (a missing data source leaves them unknown rather than failing the check).
#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

#include "cli/command.h"
#include "cli/net_state_flags.h"
#include "core/logging.h"
#include "core/machine_memory.h"
#include "core/proto_io.h"
#include "net/filler_check.h"
#include "net/intel_fields.h"
#include "net/layer_type_check.h"
#include "net/net.h"
#include "net/net_filter.h"
#include "net/read_net.h"
#include "solver/multi_phase.h"
#include "solver/net_loading.h"
#include "solver/solver_param_checks.h"
#include "solver/upgrade_solver.h"

namespace dtrain {
namespace {

// Every bottom produced by an earlier layer.
Status CheckStructure(const NetParameter& param, const std::string& source) {
  std::set<std::string> produced;
  for (const LayerParameter& lp : param.layer()) {
    for (const std::string& b : lp.bottom()) {
      if (!produced.count(b)) {
        return InvalidArgument(source + ": layer '" + lp.name() + "' (" + lp.type() +
                               "): bottom '" + b + "' is not produced by any earlier layer");
      }
    }
    for (const std::string& t : lp.top()) produced.insert(t);
  }
  return Status::Ok();
}

// The net at `path`, or one error naming everything wrong that reading can find: where the only
// parse problems are fields the schema lacks, the layer types it lacks too (dtrain check's promise:
// every unknown field and layer type in one run).
StatusOr<NetParameter> ReadNetNamingAll(const std::string& path) {
  NetParameter net;
  bool rest_parsed = false;
  const Status read = ReadTextProto(path, &net, &rest_parsed);
  if (read.ok()) return ReadNetParameter(path);
  if (!rest_parsed) return read;
  std::string message = read.message();
  StatusOr<NetParameter> current = UpgradeNetAsNeeded(net, path);
  if (current.ok()) {
    const Status types = CheckLayerTypes(*current, path);
    if (!types.ok()) message += "\n" + types.message();
  }
  return InvalidArgument(message);
}

// The solver at `path`, or one error naming everything wrong that reading can find: where the
// only parse problems are fields the schema lacks, also what is wrong with the nets it names.
StatusOr<SolverParameter> ReadSolverNamingAll(const std::string& path) {
  SolverParameter solver;
  bool rest_parsed = false;
  const Status read = ReadTextProto(path, &solver, &rest_parsed);
  if (read.ok()) return ReadSolverParameter(path);
  if (!rest_parsed) return read;
  std::string message = read.message();
  std::vector<std::string> files(solver.test_net().begin(), solver.test_net().end());
  if (solver.has_net()) files.insert(files.begin(), solver.net());
  if (solver.has_train_net()) files.insert(files.begin(), solver.train_net());
  for (const std::string& file : files) {
    StatusOr<NetParameter> net = ReadNetNamingAll(file);
    if (!net.ok()) {
      message += "\n" + net.status().message();
    } else if (const Status types = CheckLayerTypes(*net, file); !types.ok()) {
      message += "\n" + types.message();
    }
  }
  std::vector<std::pair<const NetParameter*, std::string>> inline_nets;
  if (solver.has_net_param()) inline_nets.push_back({&solver.net_param(), path + " (net_param)"});
  if (solver.has_train_net_param()) {
    inline_nets.push_back({&solver.train_net_param(), path + " (train_net_param)"});
  }
  for (const auto& [net, source] : inline_nets) {
    StatusOr<NetParameter> current = UpgradeNetAsNeeded(*net, source);
    const Status types = current.ok() ? CheckLayerTypes(*current, source) : current.status();
    if (!types.ok()) message += "\n" + types.message();
  }
  return InvalidArgument(message);
}

// Multiply-adds count twice (the layers that count them: layer.h ForwardMacs); other layers
// count one operation per output value.
double ForwardFlops(const Net& net, int i) {
  const Layer& layer = *net.layers()[i];
  if (net.top_vecs()[i].empty()) return 0;
  const double macs = layer.ForwardMacs();
  return macs > 0 ? 2 * macs : static_cast<double>(net.top_vecs()[i][0]->count());
}

// Learnable parameters and statistics (BatchNorm's) in separate columns, as published parameter
// counts leave the statistics out. A tensor shared between layers counts once in the totals.
void PrintTable(const Net& net) {
  std::printf("%-28s %-16s %-26s %12s %8s %12s\n", "layer", "type", "top shape", "params", "stats",
              "MFLOP");
  double total_flops = 0;
  int64_t total_params = 0, total_stats = 0;
  std::set<const Tensor*> counted;
  for (size_t i = 0; i < net.layers().size(); ++i) {
    Layer& layer = *net.layers()[i];
    int64_t params = 0, stats = 0;
    for (size_t b = 0; b < layer.blobs().size(); ++b) {
      const Tensor* blob = layer.blobs()[b].get();
      int64_t& column = layer.IsStatistic(static_cast<int>(b)) ? stats : params;
      column += blob->count();
      if (counted.insert(blob).second) {
        (layer.IsStatistic(static_cast<int>(b)) ? total_stats : total_params) += blob->count();
      }
    }
    const double flops = ForwardFlops(net, static_cast<int>(i));
    total_flops += flops;
    std::string shape = net.top_vecs()[i].empty() ? "-" : net.top_vecs()[i][0]->ShapeString();
    std::printf("%-28s %-16s %-26s %12lld %8lld %12.2f\n", net.layer_names()[i].c_str(),
                layer.type(), shape.c_str(), static_cast<long long>(params),
                static_cast<long long>(stats), flops / 1e6);
  }
  std::printf("%-28s %-16s %-26s %12lld %8lld %12.2f\n", "total", "", "",
              static_cast<long long>(total_params), static_cast<long long>(total_stats),
              total_flops / 1e6);
  const NetMemory memory = net.Memory();
  std::printf("memory: %s (activations %s, gradients %s, parameters %s; this machine has %s)\n",
              ByteSize(static_cast<double>(memory.total())).c_str(),
              ByteSize(static_cast<double>(memory.activations)).c_str(),
              ByteSize(static_cast<double>(memory.gradients)).c_str(),
              ByteSize(static_cast<double>(memory.parameters)).c_str(),
              ByteSize(static_cast<double>(MachineMemoryBytes())).c_str());
}

// The bottoms of `filtered` (the net of one phase) that no earlier layer of it produces but a
// layer of `all` (every phase's) does: a file written for the other phase alone (an inference
// file whose data layers are TEST-only) has nothing else missing. Empty if any other is missing.
std::vector<std::string> InputsOfOtherPhasesOnly(const NetParameter& all,
                                                 const NetParameter& filtered) {
  std::set<std::string> produced_anywhere, produced;
  for (const LayerParameter& lp : all.layer()) {
    produced_anywhere.insert(lp.top().begin(), lp.top().end());
  }
  std::vector<std::string> missing;
  for (const LayerParameter& lp : filtered.layer()) {
    for (const std::string& b : lp.bottom()) {
      if (produced.count(b)) continue;
      if (!produced_anywhere.count(b)) return {};
      if (std::find(missing.begin(), missing.end(), b) == missing.end()) missing.push_back(b);
    }
    produced.insert(lp.top().begin(), lp.top().end());
  }
  return missing;
}

// `stages` adds a solver's test_state (stages, level) to the phase. With `skip_other_phase_only`
// (check --model, which tries both phases), a phase whose only missing inputs come from layers
// of the other phase is reported as not a net of its own and skipped; `skipped` says so.
Status CheckNet(const NetParameter& param, Phase phase, const std::string& source,
                const NetState& stages = NetState(), bool* skipped = nullptr) {
  if (skipped) *skipped = false;
  // Every phase's unknown layer types and fillers, all named at once, with or without the data.
  std::string problems;
  for (const Status& found : {CheckLayerTypes(param, source), CheckFillers(param, source),
                              CheckIntelFields(param, source)}) {
    if (!found.ok()) problems += (problems.empty() ? "" : "\n") + found.message();
  }
  if (!problems.empty()) return Unsupported(problems);
  NetState state(stages);
  state.set_phase(phase);
  DT_ASSIGN_OR_RETURN(NetParameter with_inputs, ConvertLegacyInputs(param));
  DT_ASSIGN_OR_RETURN(NetParameter filtered, FilterNet(with_inputs, state));
  const Status structure = CheckStructure(filtered, source + " (" + DescribeNetState(state) + ")");
  if (!structure.ok()) {
    const std::vector<std::string> elsewhere = InputsOfOtherPhasesOnly(with_inputs, filtered);
    if (skipped == nullptr || elsewhere.empty()) return structure;
    std::string names;
    for (const std::string& name : elsewhere) names += (names.empty() ? "'" : ", '") + name + "'";
    std::printf(
        "\n%s, phase %s: not a net of its own: its input(s) %s come only from layers of "
        "another phase (a file for the other phase); skipped\n",
        source.c_str(), phase == TRAIN ? "TRAIN" : "TEST", names.c_str());
    *skipped = true;
    return Status::Ok();
  }
  SetLogToStderr(false);  // the table, not the build log, is the output
  auto net = Net::Create(param, state, 1701);
  SetLogToStderr(true);
  // A phase that fails prints nothing but its error.
  if (!net.ok() && net.status().code() != StatusCode::kNotFound) {
    return net.status().WithContext(source + " (" + DescribeNetState(state) + ")");
  }
  std::printf("\n%s, phase %s: %d layers\n", source.c_str(), phase == TRAIN ? "TRAIN" : "TEST",
              filtered.layer_size());
  if (!net.ok()) {
    std::printf("  shapes unknown (%s)\n", net.status().message().c_str());
    for (const LayerParameter& lp : filtered.layer()) {
      std::printf("  %-28s %-16s\n", lp.name().c_str(), lp.type().c_str());
    }
    return Status::Ok();
  }
  PrintTable(**net);
  return Status::Ok();
}

Status RunCheck(const Flags& flags) {
  const bool has_model = flags.Has("model"), has_solver = flags.Has("solver");
  if (has_model == has_solver) return InvalidArgument("give exactly one of --model and --solver");
  if (has_model) {
    DT_ASSIGN_OR_RETURN(const NetParameter param, ReadNetNamingAll(flags.Get("model")));
    DT_ASSIGN_OR_RETURN(const NetState stages, NetStateFromFlags(flags, TRAIN));
    bool train_skipped = false, test_skipped = false;
    DT_RETURN_IF_ERROR(CheckNet(param, TRAIN, flags.Get("model"), stages, &train_skipped));
    DT_RETURN_IF_ERROR(CheckNet(param, TEST, flags.Get("model"), stages, &test_skipped));
    if (train_skipped && test_skipped) {
      return InvalidArgument(flags.Get("model") +
                             ": neither phase is a net of its own: each takes inputs that only "
                             "layers of the other phase produce");
    }
  } else {
    if (flags.Has("stage") || flags.Has("level")) {
      return InvalidArgument(
          "--stage and --level go with --model; a solver's train_state and test_state give its "
          "nets' stages and levels");
    }
    const std::string path = flags.Get("solver");
    DT_ASSIGN_OR_RETURN(const std::optional<std::vector<SolverParameter>> phases,
                        ReadSolverPhases(path));
    if (phases) {  // Intel Caffe's multi-phase file: each phase's train net
      for (size_t j = 0; j < phases->size(); ++j) {
        const SolverParameter& phase = (*phases)[j];
        DT_RETURN_IF_ERROR(CheckNet(phase.net_param(), TRAIN,
                                    path + " (phase " + std::to_string(j) + ")",
                                    phase.train_state()));
      }
      return Status::Ok();
    }
    DT_ASSIGN_OR_RETURN(const SolverParameter solver, ReadSolverNamingAll(path));
    DT_RETURN_IF_ERROR(ValidateSolverParameter(solver).WithContext(path));
    std::vector<std::pair<NetParameter, std::string>> nets;
    auto load = [&](const std::string& net_path) -> Status {
      DT_ASSIGN_OR_RETURN(NetParameter p, ReadNetNamingAll(net_path));
      nets.emplace_back(std::move(p), net_path);
      return Status::Ok();
    };
    if (solver.has_net()) DT_RETURN_IF_ERROR(load(solver.net()));
    if (solver.has_train_net()) DT_RETURN_IF_ERROR(load(solver.train_net()));
    if (solver.has_net_param()) nets.emplace_back(solver.net_param(), path + " (net_param)");
    if (solver.has_train_net_param()) nets.emplace_back(solver.train_net_param(), path);
    if (nets.empty()) return InvalidArgument(path + ": the solver names no train net");
    DT_RETURN_IF_ERROR(CheckNet(nets[0].first, TRAIN, nets[0].second, solver.train_state()));
    if (solver.test_iter_size() > 0 && (solver.has_net() || solver.has_net_param())) {
      // One test net per test_state when the solver gives them (Caffe's stages select data).
      if (solver.test_state_size() == 0) {
        DT_RETURN_IF_ERROR(CheckNet(nets[0].first, TEST, nets[0].second));
      }
      for (const NetState& test_state : solver.test_state()) {
        DT_RETURN_IF_ERROR(CheckNet(nets[0].first, TEST, nets[0].second, test_state));
      }
    }
    for (int i = 0; i < solver.test_net_param_size(); ++i) {
      DT_RETURN_IF_ERROR(CheckNet(solver.test_net_param(i), TEST,
                                  path + " (test_net_param #" + std::to_string(i) + ")"));
    }
    for (const std::string& t : solver.test_net()) {
      DT_RETURN_IF_ERROR(load(t));
      DT_RETURN_IF_ERROR(CheckNet(nets.back().first, TEST, t));
    }
  }
  std::printf("\nOK\n");
  return Status::Ok();
}

}  // namespace

Command CheckCommand() {
  return {"check",
          "parse and validate a net or solver; print layers, shapes, parameters and FLOPs",
          "",
          {{"model", "net prototxt"}, {"solver", "solver prototxt"}, StageFlag(), LevelFlag()},
          RunCheck};
}

}  // namespace dtrain
