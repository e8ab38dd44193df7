#include "distributed/rank_job.h"

#include <algorithm>
#include <cstdint>
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
    // VideoData's batch_size is in data_param; its file is here.
    if (layer.has_video_data_param()) {
      source = layer.mutable_video_data_param()->mutable_video_file();
    }
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

// The train data layers (Data and ImageData) of `net` whose batch --global-batch shares out.
// `train_only`: the net is a dedicated train net, so every one the TRAIN phase keeps counts; in a
// net shared with the test phase, only those the TEST phase drops.
void AddTrainDataLayers(const SolverParameter& solver, NetParameter* net, bool train_only,
                        std::vector<LayerParameter*>* layers) {
  const NetState train = TrainState(solver), test = TestState(solver);
  for (LayerParameter& layer : *net->mutable_layer()) {
    if (!layer.has_data_param() && !layer.has_image_data_param()) continue;
    if (!StateKeepsLayer(train, layer)) continue;
    if (!train_only && StateKeepsLayer(test, layer)) continue;
    layers->push_back(&layer);
  }
}

int64_t BatchOf(const LayerParameter& layer) {
  return layer.has_image_data_param() ? layer.image_data_param().batch_size()
                                      : layer.data_param().batch_size();
}

void SetBatch(LayerParameter* layer, int64_t batch) {
  if (layer->has_image_data_param()) {
    layer->mutable_image_data_param()->set_batch_size(static_cast<uint32_t>(batch));
  } else {
    layer->mutable_data_param()->set_batch_size(static_cast<uint32_t>(batch));
  }
}

// The iter_size k' nearest to `iter_size` (larger first) with which `ranks` ranks read every
// layer's batch * iter_size images per iteration exactly (ranks * b' * k'); 0 if there is none.
int EvenIterSize(const std::vector<LayerParameter*>& layers, int iter_size, int ranks) {
  auto even = [&](int64_t k) {
    for (const LayerParameter* layer : layers) {
      if (BatchOf(*layer) * iter_size % (ranks * k) != 0) return false;
    }
    return true;
  };
  const int64_t most = BatchOf(*layers.front()) * iter_size;
  for (int64_t step = 0; step < most; ++step) {
    if (iter_size + step <= most && even(iter_size + step))
      return static_cast<int>(iter_size + step);
    if (iter_size - step >= 1 && even(iter_size - step)) return static_cast<int>(iter_size - step);
  }
  return 0;
}

// Points the data layers of `net` that a data server feeds (Data, AnnotatedData, BoxData) at `uri`;
// their names go to `changed`.
void MoveDataServer(NetParameter* net, const std::string& uri, std::vector<std::string>* changed) {
  for (LayerParameter& layer : *net->mutable_layer()) {
    if (!layer.has_data_param() || layer.data_param().source().rfind("tcp://", 0) != 0) continue;
    if (layer.data_param().source() == uri) continue;
    changed->push_back("--data-server-uri: layer '" + layer.name() +
                       "': " + layer.data_param().source() + " -> " + uri);
    layer.mutable_data_param()->set_source(uri);
  }
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

StatusOr<std::vector<std::string>> SplitGlobalBatch(SolverParameter* solver, int ranks,
                                                    UnevenBatch uneven) {
  DT_RETURN_IF_ERROR(InlineNetFiles(solver));  // to edit them
  std::vector<LayerParameter*> layers;
  if (solver->has_net_param())
    AddTrainDataLayers(*solver, solver->mutable_net_param(), false, &layers);
  if (solver->has_train_net_param())
    AddTrainDataLayers(*solver, solver->mutable_train_net_param(), true, &layers);
  if (layers.empty()) {
    return InvalidArgument(
        "--global-batch: the train net has no Data layer included only in "
        "the TRAIN phase whose batch could be shared");
  }
  const int iter_size = solver->iter_size();
  const int even_iter_size = EvenIterSize(layers, iter_size, ranks);
  std::vector<std::string> changed;
  if (even_iter_size > 0) {
    // Exactly the global batch: per-rank batches, and iter_size if they alone cannot do it.
    for (LayerParameter* layer : layers) {
      const int64_t batch = BatchOf(*layer);
      const int64_t share = batch * iter_size / (int64_t{ranks} * even_iter_size);
      SetBatch(layer, share);
      changed.push_back(layer->name() + ": " + std::to_string(batch) + " -> " +
                        std::to_string(share));
    }
    if (even_iter_size != iter_size) {
      solver->set_iter_size(even_iter_size);
      changed.push_back("iter_size " + std::to_string(iter_size) + " -> " +
                        std::to_string(even_iter_size) + ", to keep " +
                        std::to_string(BatchOf(*layers.front()) * ranks * even_iter_size) +
                        " images per iteration");
    }
    return changed;
  }
  const LayerParameter& first = *layers.front();
  const int64_t total = BatchOf(first) * iter_size;
  if (uneven == UnevenBatch::kKeepBatch) {
    return InvalidArgument(
        "--global-batch: layer '" + first.name() + "' has batch_size " +
        std::to_string(BatchOf(first)) +
        (iter_size > 1 ? " with iter_size " + std::to_string(iter_size) : std::string()) + ": " +
        std::to_string(total) + " images per iteration, which " + std::to_string(ranks) +
        " ranks cannot share evenly with any batch and iter_size (--uneven-batch=scale-lr "
        "rounds each rank's batch down and scales base_lr to match)");
  }
  // kScaleLr: each rank's batch rounded down, the rate scaled by the share of images left. A
  // batch smaller than the ranks would round down to nothing: rounding it up instead would train
  // on more images than asked and raise the rate, so it is refused.
  for (const LayerParameter* layer : layers) {
    if (BatchOf(*layer) < ranks) {
      return InvalidArgument("--global-batch with --uneven-batch=scale-lr: layer '" +
                             layer->name() + "' has batch_size " + std::to_string(BatchOf(*layer)) +
                             ", fewer images than the " + std::to_string(ranks) +
                             " ranks, so a rank's share cannot be rounded down (it would be 0); "
                             "give a batch of at least " +
                             std::to_string(ranks) + " or run on fewer ranks");
    }
  }
  const int64_t first_batch = BatchOf(first);
  const int64_t kept = first_batch / ranks * ranks;
  for (LayerParameter* layer : layers) {
    const int64_t batch = BatchOf(*layer);
    const int64_t share = batch / ranks;
    SetBatch(layer, share);
    changed.push_back(layer->name() + ": " + std::to_string(batch) + " -> " +
                      std::to_string(share));
  }
  const float scale = static_cast<float>(kept) / static_cast<float>(first_batch);
  std::ostringstream rate;
  rate << "base_lr " << solver->base_lr() << " -> " << solver->base_lr() * scale << " for " << kept
       << " of " << first_batch << " images per pass (--uneven-batch=scale-lr)";
  solver->set_base_lr(solver->base_lr() * scale);
  changed.push_back(rate.str());
  return changed;
}

StatusOr<RankJob> ResolveRankJob(const JobRequest& request) {
  RankJob job;
  job.solver_path = ExpandRankPattern(request.solver_path, request.rank, request.world);
  if (request.solver) {
    job.solver = *request.solver;
  } else {
    DT_ASSIGN_OR_RETURN(job.solver, ReadSolverParameter(job.solver_path));
  }
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
    solver.set_forced_engine(*request.engine);
  }
  if (solver.lr_scaling() == SolverParameter::LINEAR && request.global_batch) {
    return InvalidArgument(
        "lr_scaling: LINEAR scales the rate for a global batch N times the "
        "solver's; with --global-batch the batch stays the solver's, so the "
        "two do not go together");
  }
  if (solver.lr_scaling() == SolverParameter::LINEAR && solver.lr_policy() == "multifixed") {
    return InvalidArgument(
        "lr_scaling: LINEAR scales base_lr, which lr_policy \"multifixed\" does not use (its "
        "rates are stagelr): scale stagelr in the file instead");
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
  if (!request.data_server_uri.empty()) {
    if (request.data_server_uri.rfind("tcp://", 0) != 0) {
      return InvalidArgument("--data-server-uri must be tcp://HOST:PORT, not '" +
                             request.data_server_uri + "'");
    }
    DT_RETURN_IF_ERROR(InlineNetFiles(&solver));
    if (solver.has_net_param())
      MoveDataServer(solver.mutable_net_param(), request.data_server_uri, &job.changes);
    if (solver.has_train_net_param())
      MoveDataServer(solver.mutable_train_net_param(), request.data_server_uri, &job.changes);
    for (NetParameter& net : *solver.mutable_test_net_param())
      MoveDataServer(&net, request.data_server_uri, &job.changes);
  }
  // A solver of its own per rank comes with training data of its own.
  job.shard_train_net = request.solver_path.find("%#") == std::string::npos;
  if (request.global_batch) {
    DT_ASSIGN_OR_RETURN(const std::vector<std::string> split,
                        SplitGlobalBatch(&solver, request.world, request.uneven_batch));
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
  if (!s.forced_engine().empty()) out << ", engine " << s.forced_engine() << " on every layer";
  if (!s.engine().empty()) out << ", engine " << s.engine() << " for layers naming none";
  if (request.world > 1) {
    out << "; data: " << (job.shard_train_net ? "a share of each epoch" : "this rank's own files");
    for (const std::string& layer : job.per_rank_sources) out << ", " << layer << " per rank";
  }
  return out.str();
}

}  // namespace dtrain
