#include "distributed/rank_job.h"

#include <filesystem>
#include <sstream>

#include "layers/engine.h"
#include "net/net_filter.h"
#include "net/read_net.h"
#include "solver/upgrade_solver.h"

namespace dtrain {
namespace {

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  for (size_t at = text->find(from); at != std::string::npos;
       at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

// Returns whether any source changed; adds the layers whose source changed to `per_rank`.
bool ExpandSources(NetParameter* net, int rank, int size, std::set<std::string>* per_rank) {
  bool changed = false;
  for (LayerParameter& layer : *net->mutable_layer()) {
    std::string* source = nullptr;
    if (layer.has_data_param()) source = layer.mutable_data_param()->mutable_source();
    if (layer.has_image_data_param()) source = layer.mutable_image_data_param()->mutable_source();
    if (!source) continue;
    const std::string expanded = ExpandRankPattern(*source, rank, size);
    if (expanded == *source) continue;
    changed = true;
    per_rank->insert(layer.name());
    *source = expanded;
  }
  return changed;
}

// The phases' states as the solver builds its nets (solver.cc), for deciding which layers feed
// training.
NetState TrainState(const SolverParameter& solver) {
  NetState state = solver.train_state();
  state.set_phase(TRAIN);
  return state;
}

NetState TestState(const SolverParameter& solver) {
  NetState state = solver.test_state_size() > 0 ? solver.test_state(0) : NetState();
  state.set_phase(TEST);
  return state;
}

// `train_only`: the net is a dedicated train net, so every Data or ImageData layer the TRAIN
// phase keeps counts; in a net shared with the test phase, only those the TEST phase drops.
Status SplitBatches(const SolverParameter& solver, NetParameter* net, int ranks, bool train_only,
                    std::vector<std::string>* changed) {
  const NetState train = TrainState(solver), test = TestState(solver);
  for (LayerParameter& layer : *net->mutable_layer()) {
    const bool images = layer.has_image_data_param();
    if (!layer.has_data_param() && !images) continue;
    if (!StateKeepsLayer(train, layer)) continue;
    if (!train_only && StateKeepsLayer(test, layer)) continue;
    const unsigned batch =
        images ? layer.image_data_param().batch_size() : layer.data_param().batch_size();
    if (batch % ranks != 0) {
      return InvalidArgument("--global-batch: layer '" + layer.name() + "' has batch_size " +
                             std::to_string(batch) + ", which " + std::to_string(ranks) +
                             " ranks cannot share evenly");
    }
    if (images) {
      layer.mutable_image_data_param()->set_batch_size(batch / ranks);
    } else {
      layer.mutable_data_param()->set_batch_size(batch / ranks);
    }
    changed->push_back(layer.name() + ": " + std::to_string(batch) + " -> " +
                       std::to_string(batch / ranks));
  }
  return Status::Ok();
}

}  // namespace

std::string ExpandRankPattern(const std::string& text, int rank, int size) {
  std::string out = text;
  ReplaceAll(&out, "%#", std::to_string(rank));
  ReplaceAll(&out, "%*", std::to_string(size));
  return out;
}

Status InlineNetFiles(SolverParameter* solver) {
  if (solver->has_net()) {
    DT_ASSIGN_OR_RETURN(*solver->mutable_net_param(), ReadNetParameter(solver->net()));
    solver->clear_net();
  }
  if (solver->has_train_net()) {
    DT_ASSIGN_OR_RETURN(*solver->mutable_train_net_param(), ReadNetParameter(solver->train_net()));
    solver->clear_train_net();
  }
  return Status::Ok();
}

Status ExpandRankPatterns(SolverParameter* solver, int rank, int size,
                          std::set<std::string>* per_rank_layers) {
  solver->set_snapshot_prefix(ExpandRankPattern(solver->snapshot_prefix(), rank, size));
  if (solver->has_net_param()) {
    ExpandSources(solver->mutable_net_param(), rank, size, per_rank_layers);
  }
  if (solver->has_train_net_param()) {
    ExpandSources(solver->mutable_train_net_param(), rank, size, per_rank_layers);
  }
  if (solver->has_net()) {
    const std::string path = ExpandRankPattern(solver->net(), rank, size);
    DT_ASSIGN_OR_RETURN(NetParameter net, ReadNetParameter(path));
    if (ExpandSources(&net, rank, size, per_rank_layers)) {
      *solver->mutable_net_param() = net;
      solver->clear_net();
    } else {
      solver->set_net(path);
    }
  }
  return Status::Ok();
}

StatusOr<std::vector<std::string>> SplitGlobalBatch(SolverParameter* solver, int ranks) {
  std::vector<std::string> changed;
  DT_RETURN_IF_ERROR(InlineNetFiles(solver));  // to edit them
  if (solver->has_net_param()) {
    DT_RETURN_IF_ERROR(SplitBatches(*solver, solver->mutable_net_param(), ranks, false, &changed));
  }
  if (solver->has_train_net_param()) {
    DT_RETURN_IF_ERROR(
        SplitBatches(*solver, solver->mutable_train_net_param(), ranks, true, &changed));
  }
  if (changed.empty()) {
    return InvalidArgument(
        "--global-batch: the train net has no Data layer included only in "
        "the TRAIN phase whose batch could be shared");
  }
  return changed;
}

StatusOr<RankJob> ResolveRankJob(const JobRequest& request) {
  RankJob job;
  job.solver_path = ExpandRankPattern(request.solver_path, request.rank, request.world);
  DT_ASSIGN_OR_RETURN(job.solver, ReadSolverParameter(job.solver_path));
  SolverParameter& solver = job.solver;
  if (request.iterations >= 0) solver.set_max_iter(request.iterations);
  const std::filesystem::path path(job.solver_path);
  if (solver.snapshot_prefix().empty()) {
    solver.set_snapshot_prefix((path.parent_path() / path.stem()).string());
  } else if (solver.snapshot_prefix().back() == '/') {
    solver.set_snapshot_prefix(solver.snapshot_prefix() + path.stem().string());
  }
  if (request.engine) {
    DT_RETURN_IF_ERROR(ParseEngine(*request.engine).status().WithContext("--engine"));
    solver.set_engine(*request.engine);
  }
  if (solver.lr_scaling() == SolverParameter::LINEAR && request.global_batch) {
    return InvalidArgument(
        "lr_scaling: LINEAR scales the rate for a global batch N times the "
        "solver's; with --global-batch the batch stays the solver's, so the "
        "two do not go together");
  }
  if (solver.lr_scaling() == SolverParameter::LINEAR && request.world > 1) {
    std::ostringstream change;
    change << "lr_scaling: LINEAR: base_lr " << solver.base_lr() << " x " << request.world
           << " ranks = " << solver.base_lr() * request.world;
    job.changes.push_back(change.str());
    solver.set_base_lr(solver.base_lr() * static_cast<float>(request.world));
  }
  DT_RETURN_IF_ERROR(
      ExpandRankPatterns(&solver, request.rank, request.world, &job.per_rank_sources));
  // A solver of its own per rank comes with training data of its own.
  job.shard_train_net = request.solver_path.find("%#") == std::string::npos;
  if (request.global_batch) {
    DT_ASSIGN_OR_RETURN(const std::vector<std::string> split,
                        SplitGlobalBatch(&solver, request.world));
    for (const std::string& layer : split) {
      job.changes.push_back("--global-batch over " + std::to_string(request.world) +
                            " rank(s): " + layer);
    }
  }
  return job;
}

std::string DescribeRankJob(const RankJob& job, const JobRequest& request) {
  const SolverParameter& s = job.solver;
  std::ostringstream out;
  out << "Job of rank " << request.rank << " of " << request.world << ": solver " << job.solver_path
      << "; net "
      << (s.has_net()         ? s.net()
          : s.has_net_param() ? "inlined"
          : s.has_train_net() ? s.train_net()
                              : "inlined train_net")
      << "; max_iter " << s.max_iter() << ", base_lr " << s.base_lr() << ", snapshot_prefix "
      << s.snapshot_prefix();
  if (!s.engine().empty()) out << ", engine " << s.engine();
  if (request.world > 1) {
    out << "; data: " << (job.shard_train_net ? "a share of each epoch" : "this rank's own files");
    for (const std::string& layer : job.per_rank_sources) out << ", " << layer << " per rank";
  }
  return out.str();
}

}  // namespace dtrain
