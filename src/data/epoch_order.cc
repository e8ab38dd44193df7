#include "data/epoch_order.h"

#include <numeric>

#include "core/rng.h"

namespace dtrain {

EpochOrder::EpochOrder(int64_t count, bool shuffle, uint64_t seed)
    : count_(count), shuffle_(shuffle), seed_(seed) {}

int64_t EpochOrder::RecordAt(int64_t position) const {
  if (!shuffle_) return position % count_;
  return (*Permutation(position / count_))[static_cast<size_t>(position % count_)];
}

std::shared_ptr<const std::vector<uint32_t>> EpochOrder::Permutation(int64_t epoch) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = kept_.find(epoch);
  if (found != kept_.end()) return found->second;
  auto order = std::make_shared<std::vector<uint32_t>>(static_cast<size_t>(count_));
  std::iota(order->begin(), order->end(), 0u);
  Rng rng(DeriveSeed(seed_, static_cast<uint64_t>(epoch)));
  for (size_t i = order->size() - 1; i > 0; --i) {
    std::swap((*order)[i], (*order)[rng.Next() % (i + 1)]);
  }
  // Ranks move through epochs together, so the oldest epoch kept is the one to drop.
  if (kept_.size() >= kKeptEpochs) kept_.erase(kept_.begin());
  kept_.emplace(epoch, order);
  return order;
}

}  // namespace dtrain
