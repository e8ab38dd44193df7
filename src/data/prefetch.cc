#include "data/prefetch.h"

#include <algorithm>
#include <new>
#include <utility>

#include "core/machine_memory.h"
#include "core/thread_signals.h"

namespace dtrain {

void CopyTensor(const Tensor& from, Tensor* to) {
  to->ReshapeLike(from);
  std::copy(from.data(), from.data() + from.count(), to->mutable_data());
}

void CopyBatchTo(const Batch& batch, Tensor* data, Tensor* label) {
  CopyTensor(batch.data, data);
  if (label) CopyTensor(batch.label, label);
}

BatchPrefetcher::BatchPrefetcher(int depth, Loader loader)
    : loader_(std::move(loader)), batches_(depth > 0 ? depth : 1) {
  for (Batch& batch : batches_) free_.push_back(&batch);
  thread_ = std::thread(&BatchPrefetcher::Run, this);
}

BatchPrefetcher::~BatchPrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

// The loader's Status, or a refused tensor size or failed allocation as one: an exception must
// not end this thread (and the process).
Status BatchPrefetcher::LoadGuarded(Batch* batch) {
  try {
    return loader_(batch);
  } catch (const TensorShapeError& e) {
    return InvalidArgument(std::string("reading a batch: ") + e.what());
  } catch (const std::bad_alloc&) {
    return IoError("reading a batch: out of memory (this machine has " +
                   ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
  }
}

void BatchPrefetcher::Run() {
  BlockAsynchronousSignals();
  for (;;) {
    Batch* batch = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || !free_.empty(); });
      if (stopping_) return;
      batch = free_.front();
      free_.pop_front();
    }
    // The loader runs unlocked: the consumer keeps taking finished batches meanwhile.
    Status status = LoadGuarded(batch);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (status.ok()) {
        full_.push_back(batch);
      } else {
        free_.push_back(batch);
        error_ = status;
      }
    }
    changed_.notify_all();
    if (!status.ok()) return;
  }
}

StatusOr<Batch*> BatchPrefetcher::Take() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !full_.empty() || !error_.ok(); });
  if (full_.empty()) return error_;
  Batch* batch = full_.front();
  full_.pop_front();
  return batch;
}

void BatchPrefetcher::Release(Batch* batch) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(batch);
  }
  changed_.notify_all();
}

}  // namespace dtrain
