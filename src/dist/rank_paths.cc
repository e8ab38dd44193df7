#include "dist/rank_paths.h"

#include "net/read_net.h"

namespace dtrain {
namespace {

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
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

}  // namespace

std::string ExpandRankPattern(const std::string& text, int rank, int size) {
  std::string out = text;
  ReplaceAll(&out, "%#", std::to_string(rank));
  ReplaceAll(&out, "%*", std::to_string(size));
  return out;
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

}  // namespace dtrain
