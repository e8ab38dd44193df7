// EpochOrder: which record a data server serves at each position of its record sequence.
//
// Unshuffled, position p is record p mod count: the LMDB's key order, epoch after epoch, as a
// Data layer reads it. Shuffled, epoch e = p / count visits the records in a permutation drawn
// from DeriveSeed(seed, e) (Fisher-Yates over mt19937): a new order every epoch, the same orders
// for the same seed, and still every record exactly once per epoch, so ranks taking strided
// positions split each epoch disjointly. Permutations are made on first use and the last few
// are kept. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace dtrain {

class EpochOrder {
 public:
  EpochOrder(int64_t count, bool shuffle, uint64_t seed);

  // The record (0 .. count-1) at sequence position `position` >= 0.
  int64_t RecordAt(int64_t position) const;

 private:
  std::shared_ptr<const std::vector<uint32_t>> Permutation(int64_t epoch) const;

  int64_t count_;
  bool shuffle_;
  uint64_t seed_;
  static constexpr size_t kKeptEpochs = 4;
  mutable std::mutex mutex_;
  mutable std::map<int64_t, std::shared_ptr<const std::vector<uint32_t>>> kept_;  // by epoch
};

}  // namespace dtrain
