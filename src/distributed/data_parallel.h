// DataParallel: synchronous data-parallel training of one net over a communicator's ranks.
//
// Every rank holds the whole net and trains on its own part of each global batch. Parameter
// gradients are summed over ranks in buckets: the learnable tensors, in the order backward
// finishes them (last layer first), are packed into buckets of about `bucket_bytes` (the first
// one small, so that communication starts early; BucketOptions has the default). As soon as the
// backward hook has passed every layer that writes a bucket's gradients, the bucket is copied
// out (a one-tensor bucket is summed where it lies) and handed to a communication thread, whose
// allreduce overlaps the rest of backward. After the first layer's backward the main thread
// waits for the remaining buckets and writes the sums, divided by the number of ranks, back: N
// ranks with batch b update exactly as one process with batch N * b (losses are means over the
// batch). Bucket composition and order are fixed, so runs are reproducible.
// BroadcastParameters makes rank 0's weights (and BatchNorm statistics) every rank's at the
// start. The net never sees any of it: it attaches through Net's backward hook; the solver
// reaches the rest through SolverCollectives.
//
// A failed collective is kept in status() (hooks cannot return one) and gradients stop being
// exchanged; the caller stops training on it. Holds references to the communicator and the net,
// which must outlive it. The communication thread only runs collectives between a bucket's
// hand-over and the end of that backward pass, so the communicator is used by one thread at a
// time. Otherwise not thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/timeline.h"
#include "distributed/communicator.h"
#include "distributed/progress_watchdog.h"
#include "net/net.h"
#include "solver/solver.h"

namespace dtrain {

struct BucketOptions {
  // 0: an eighth of all gradients, at least 1 MiB and at most 25 MiB (PyTorch DDP's size). The
  // bucket finished last, when backward ends, cannot overlap anything: on slow links 25 MiB
  // buckets left most of GoogLeNet's exchange exposed (bench/README.md).
  size_t bucket_bytes = 0;
  size_t first_bucket_bytes = 1u << 20;  // the first bucket: small, to start communicating early
};

class DataParallel {
 public:
  // `watchdog` (optional, outlives this) watches every collective; `timeline` (optional,
  // outlives this) records each bucket's allreduce and the wait for the sums.
  DataParallel(Communicator& communicator, Net& net, const BucketOptions& options = {},
               ProgressWatchdog* watchdog = nullptr, Timeline* timeline = nullptr);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  // Whether the next backward passes hand their gradients over (the default). With iter_size > 1
  // only the iteration's last pass does: the passes before it only add to the gradients.
  void SetExchangeEnabled(bool enabled) { exchange_enabled_ = enabled; }
  // Gradient exchanges completed (one per backward pass with the exchange enabled).
  int64_t exchanges() const { return exchanges_; }

  Status BroadcastParameters();
  // Averages what each rank's layers gather alone (BatchNorm's mean and variance) over ranks.
  Status SynchronizeStatistics();
  // What every rank does after this iteration: stop if any rank was asked to stop (a signal),
  // else snapshot if any was asked to. Deciding together keeps the ranks in step.
  SolverAction AgreeOnAction(SolverAction local);
  // Seconds the training thread waited for gradient sums since the last call.
  double TakeWaitSeconds();

  const Status& status() const { return status_; }
  size_t num_buckets() const { return buckets_.size(); }
  size_t bucket_bytes() const { return bucket_bytes_; }  // the size used (after the automatic rule)

  // For benchmarks and the scaling model: each bucket's size and the layer whose backward
  // completes it, in allreduce order; and one exchange of the current gradients as at the end
  // of a backward pass, every bucket handed over at once (no overlap with compute).
  struct BucketInfo {
    size_t bytes;
    int ready_after_layer;
  };
  std::vector<BucketInfo> bucket_plan() const;
  Status ExchangeGradientsNow();

 private:
  struct Bucket {
    std::vector<int> params;    // indices into net.learnable_params(), in backward order
    int ready_after_layer = 0;  // the bucket is complete once this layer's backward has run
    size_t count = 0;           // floats in the bucket
    std::vector<float> values;  // packed gradients; empty for a one-tensor bucket, which is
                                // summed in place in the tensor's diff (no copies)
    float* data = nullptr;      // what the communication thread sums: values or the diff
    std::string name;           // "allreduce bucket 2 (1024 KiB)", for the timeline
  };

  void PlanBuckets(const BucketOptions& options);
  void OnLayerBackwardDone(int layer_index);
  void CommunicationLoop();

  Communicator& communicator_;
  Net& net_;
  ProgressWatchdog* watchdog_;
  Timeline* timeline_;
  std::vector<Bucket> buckets_;
  size_t bucket_bytes_ = 0;
  bool exchange_enabled_ = true;
  int64_t exchanges_ = 0;
  size_t next_bucket_ = 0;           // main thread: the next bucket to hand over in this backward
  double wait_seconds_ = 0;          // main thread: waiting at the end of backward
  std::vector<Tensor*> statistics_;  // BatchNorm blobs, averaged by SynchronizeStatistics
  std::vector<float> statistics_values_;
  Status status_;

  std::mutex mutex_;
  std::condition_variable changed_;
  size_t handed_over_ = 0;  // buckets given to the communication thread in this backward
  size_t reduced_ = 0;      // buckets it has summed
  Status thread_status_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace dtrain
