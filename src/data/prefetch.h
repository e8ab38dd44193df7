// BatchPrefetcher: a background thread that fills a bounded queue of ready batches.
//
// The prefetcher owns `depth` Batch objects (data + label tensors) that cycle between a free
// queue and a full queue, as in Caffe's BasePrefetchingDataLayer, so a steady state allocates
// nothing. Its thread takes a free batch, calls the loader on it and queues it as full; the
// consumer Take()s a full batch, copies it out and Release()s it back.
//
// Errors: when the loader returns a non-OK Status (a corrupt record, a failed read) the thread
// stops; the consumer first receives the batches completed before it, then that Status from every
// later Take(). Nothing aborts the process.
//
// Lifetime: the thread starts in the constructor and is stopped and joined by the destructor,
// which does not wait for the consumer. The loader runs only on the prefetch thread, so whatever
// it touches (a cursor, a transformer, an Rng) must not be used elsewhere while the prefetcher
// lives. Take/Release must be called from one consumer thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace dtrain {

struct Batch {
  Tensor data;               // N x C x H x W
  Tensor label;              // N
  std::vector<Tensor> more;  // the tops after label, of a layer with more (HDF5Data's datasets)
  // The loader's state right after filling this batch, opaque to the prefetcher: what a
  // snapshot taken after consuming this batch must record to resume exactly.
  std::string state;
};

// Copies a batch into a layer's tops, reshaping them: `data`, and `label` unless it is null.
void CopyBatchTo(const Batch& batch, Tensor* data, Tensor* label);
// Copies `from`'s values into `to`, reshaping it.
void CopyTensor(const Tensor& from, Tensor* to);

class BatchPrefetcher {
 public:
  // Fills one batch; reshapes its tensors as needed.
  using Loader = std::function<Status(Batch*)>;

  // Starts the thread. `depth` >= 1 batches are read ahead.
  BatchPrefetcher(int depth, Loader loader);
  ~BatchPrefetcher();
  BatchPrefetcher(const BatchPrefetcher&) = delete;
  BatchPrefetcher& operator=(const BatchPrefetcher&) = delete;

  // Blocks until a batch is ready and returns it, or returns the loader's error. The batch stays
  // the consumer's until it is passed to Release.
  StatusOr<Batch*> Take();
  void Release(Batch* batch);

 private:
  void Run();
  Status LoadGuarded(Batch* batch);

  Loader loader_;
  std::vector<Batch> batches_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch*> free_;  // guarded by mutex_
  std::deque<Batch*> full_;  // guarded by mutex_
  Status error_;             // guarded by mutex_; set once, when the loader fails
  bool stopping_ = false;    // guarded by mutex_
  std::thread thread_;       // last: starts after everything above is ready
};

}  // namespace dtrain
