// LoopbackGroup: the ranks of one data-parallel job as threads of this process. Each rank's
// thread uses the communicator Rank(r) gives; a collective completes when every rank has called
// it, and the last to arrive does the work for all of them. Sums are taken in rank order, so every
// rank gets the same bits, as from MPI. For unit tests of data-parallel training without mpirun
// (also in a build without MPI); it is not meant to be fast.
//
// Ranks must call the same collectives in the same order, as with MPI; one that calls another
// kind, or another count, makes that collective fail on every rank (InvalidArgument). The group
// counts what was summed, for tests that check the traffic. The group outlives its communicators.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/communicator.h"

namespace dtrain {

class LoopbackGroup {
 public:
  explicit LoopbackGroup(int size);
  LoopbackGroup(const LoopbackGroup&) = delete;
  LoopbackGroup& operator=(const LoopbackGroup&) = delete;

  int size() const { return size_; }
  // The communicator of rank `rank` (one per rank; call once per rank).
  std::unique_ptr<Communicator> Rank(int rank);

  // Rank `rank` has ended (with `why`): every collective in progress or to come fails on every
  // rank, naming it, as an MPI job ends when a rank aborts. Without it the others would wait for
  // the rank forever.
  void Leave(int rank, const Status& why);

  // What was summed so far: float allreduces (gradients, statistics) and the floats in them.
  int64_t float_allreduces() const;
  int64_t floats_summed() const;

 private:
  friend class LoopbackCommunicator;
  // One rank's part in a collective.
  struct Call {
    const char* kind = "";
    void* data = nullptr;
    int64_t count = 0;
    int root = 0;
  };
  // Blocks until every rank has called; the last one runs `Combine` over all the calls.
  Status Meet(int rank, const Call& call);
  Status Combine();
  std::string Missing() const;

  const int size_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  std::vector<Call> calls_;
  std::vector<bool> arrived_;
  int arrivals_ = 0;
  uint64_t generation_ = 0;  // completed collectives
  Status result_;            // of the last one
  std::string left_;         // why a rank left; empty while every rank is in
  int64_t float_allreduces_ = 0;
  int64_t floats_summed_ = 0;
};

}  // namespace dtrain
