#include "dist/global_batch.h"

#include "net/read_net.h"

namespace dtrain {
namespace {

bool OnlyInTrainPhase(const LayerParameter& layer) {
  if (layer.include_size() == 0) return false;
  for (const NetStateRule& rule : layer.include()) {
    if (!rule.has_phase() || rule.phase() != TRAIN) return false;
  }
  return true;
}

bool ExcludedFromTrainPhase(const LayerParameter& layer) {
  for (const NetStateRule& rule : layer.exclude()) {
    if (rule.has_phase() && rule.phase() == TRAIN) return true;
  }
  for (const NetStateRule& rule : layer.include()) {
    if (rule.has_phase() && rule.phase() != TRAIN) return true;
  }
  return false;
}

// `train_only`: the net is a dedicated train net, so every Data or ImageData layer in its TRAIN
// phase counts; in a net shared with the test phase, only the layers included in TRAIN alone.
Status SplitBatches(NetParameter* net, int ranks, bool train_only,
                    std::vector<std::string>* changed) {
  for (LayerParameter& layer : *net->mutable_layer()) {
    const bool images = layer.has_image_data_param();
    if (!layer.has_data_param() && !images) continue;
    if (train_only ? ExcludedFromTrainPhase(layer) : !OnlyInTrainPhase(layer)) continue;
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

StatusOr<std::vector<std::string>> SplitGlobalBatch(SolverParameter* solver, int ranks) {
  std::vector<std::string> changed;
  if (solver->has_net() || solver->has_train_net()) {  // inline the file to edit it
    const std::string path = solver->has_net() ? solver->net() : solver->train_net();
    DT_ASSIGN_OR_RETURN(NetParameter net, ReadNetParameter(path));
    if (solver->has_net()) {
      *solver->mutable_net_param() = net;
      solver->clear_net();
    } else {
      *solver->mutable_train_net_param() = net;
      solver->clear_train_net();
    }
  }
  if (solver->has_net_param()) {
    DT_RETURN_IF_ERROR(SplitBatches(solver->mutable_net_param(), ranks, false, &changed));
  }
  if (solver->has_train_net_param()) {
    DT_RETURN_IF_ERROR(SplitBatches(solver->mutable_train_net_param(), ranks, true, &changed));
  }
  if (changed.empty()) {
    return InvalidArgument("--global-batch: the train net has no Data layer included only in "
                           "the TRAIN phase whose batch could be shared");
  }
  return changed;
}

}  // namespace dtrain
