// DataParallel: synchronous data-parallel training of one net over a communicator's ranks.
//
// Every rank holds the whole net and trains on its own part of each global batch. After the
// first layer's backward (the last hook of an iteration) the parameter gradients of all ranks
// are summed in one fused allreduce, in a fixed order, and divided by the number of ranks, so
// that N ranks with batch b update exactly as one process with batch N * b (losses are means
// over the batch). BroadcastParameters makes rank 0's weights (and BatchNorm statistics) every
// rank's at the start. The solver never sees any of it: it attaches through Net's backward hook.
//
// A failed collective is kept in status() (hooks cannot return one) and gradients stop being
// exchanged; the caller stops training on it. Holds references to the communicator and the net,
// which must outlive it. Not thread-safe.
#pragma once

#include <vector>

#include "dist/communicator.h"
#include "net/net.h"

namespace dtrain {

class DataParallel {
 public:
  DataParallel(Communicator& communicator, Net& net);
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  Status BroadcastParameters();
  const Status& status() const { return status_; }

 private:
  void AverageGradients();

  Communicator& communicator_;
  Net& net_;
  std::vector<float> buffer_;  // every gradient, packed in learnable_params() order
  Status status_;
};

}  // namespace dtrain
