#include "distributed/trainer.h"

#include <cstdlib>
#include <sstream>

#include "core/logging.h"
#include "layers/sharded_source.h"
#include "solver/hdf5_snapshot.h"
#include "solver/snapshot_pair.h"

namespace dtrain {

Trainer::Trainer(Solver& solver, Communicator& communicator, TrainerOptions options)
    : solver_(solver), communicator_(communicator), options_(std::move(options)) {
  if (communicator_.size() > 1) {
    if (!options_.on_stall) {
      options_.on_stall = [](const std::string& report) {
        DT_LOG(ERROR) << report << ". Ending the job.";
        std::_Exit(3);
      };
    }
    watchdog_ = std::make_unique<ProgressWatchdog>(
        options_.collective_timeout, [this](const std::string& operation, double seconds) {
          std::string missing = communicator_.DescribeMissingRanks();
          if (missing.empty()) missing = "none seen (every rank is alive and has reached it)";
          std::ostringstream report;
          report << options_.who << ": " << operation << " has made no progress for " << seconds
                 << " s (--collective-timeout); missing: " << missing;
          options_.on_stall(report.str());
        });
  }
  ShardDataLayers();
  exchange_ = std::make_unique<DataParallel>(communicator_, solver_.net(), options_.buckets,
                                             watchdog_.get(), options_.timeline);
  if (communicator_.size() == 1) return;
  DT_LOG(INFO) << "Gradients summed over " << communicator_.size() << " ranks in "
               << exchange_->num_buckets() << " bucket(s) of up to "
               << (exchange_->bucket_bytes() >> 10) << " KiB";
  SolverCollectives collectives;
  collectives.share = communicator_.rank();
  collectives.shares = communicator_.size();
  collectives.writes_snapshots = communicator_.rank() == 0;
  collectives.before_backward = [this](bool last_pass) {
    exchange_->SetExchangeEnabled(last_pass);
  };
  collectives.exchange_status = [this] { return exchange_->status(); };
  collectives.sum = [this](std::vector<double>* values) {
    watchdog_->Begin("the sum of test scores or losses over ranks");
    Status status = communicator_.AllreduceSum(values->data(), values->size());
    watchdog_->End();
    return status.WithContext("summing scores over ranks");
  };
  collectives.synchronize_statistics = [this] { return exchange_->SynchronizeStatistics(); };
  collectives.take_wait_seconds = [this] { return exchange_->TakeWaitSeconds(); };
  solver_.SetCollectives(std::move(collectives));
  SetActionSource(nullptr);
}

// Rank r reads the positions r, r + N, r + 2N, ... of each epoch, so that the N batches of an
// iteration are the batch one process of N times the size reads.
void Trainer::ShardDataLayers() {
  if (communicator_.size() == 1) return;
  std::vector<Net*> nets;
  if (options_.shard_train_net) nets.push_back(&solver_.net());
  for (const auto& test_net : solver_.test_nets()) nets.push_back(test_net.get());
  for (Net* net : nets) {
    for (const auto& layer : net->layers()) {
      auto* data = dynamic_cast<ShardedSource*>(layer.get());
      if (data && !options_.per_rank_sources.count(layer->name())) {
        data->SetShard(communicator_.rank(), communicator_.size());
      }
    }
  }
}

void Trainer::SetActionSource(std::function<SolverAction()> source) {
  if (communicator_.size() == 1) {
    solver_.SetActionSource(std::move(source));
    return;
  }
  // Every rank must take part in the agreement, with or without a source of its own.
  solver_.SetActionSource([this, source = std::move(source)] {
    return exchange_->AgreeOnAction(source ? source() : SolverAction::kNone);
  });
}

Status Trainer::Restore(const std::string& path) {
  if (communicator_.size() == 1) return solver_.Restore(path);
  std::string state_bytes, weights_bytes;
  if (communicator_.rank() == 0) {
    DT_LOG(INFO) << "Restoring previous solver status from " << path << " (sent to every rank)";
    DT_ASSIGN_OR_RETURN(const SolverState state, ReadSolverStateFile(path));
    NetParameter weights;
    if (state.has_learned_net()) {
      DT_ASSIGN_OR_RETURN(weights, ReadSnapshotWeights(state, path));
    }
    state.SerializeToString(&state_bytes);
    weights.SerializeToString(&weights_bytes);
  }
  DT_RETURN_IF_ERROR(communicator_.BroadcastBytes(&state_bytes, 0));
  DT_RETURN_IF_ERROR(communicator_.BroadcastBytes(&weights_bytes, 0));
  SolverState state;
  NetParameter weights;
  if (!state.ParseFromString(state_bytes) || !weights.ParseFromString(weights_bytes)) {
    return DataLoss(path + ": the solver state received from rank 0 does not parse");
  }
  return solver_.Restore(state, state.has_learned_net() ? &weights : nullptr, path);
}

Status Trainer::Solve() {
  DT_RETURN_IF_ERROR(exchange_->BroadcastParameters());
  DT_RETURN_IF_ERROR(solver_.Solve());
  return exchange_->status();
}

}  // namespace dtrain
