#include "dist/data_parallel.h"

#include <algorithm>

namespace dtrain {

DataParallel::DataParallel(Communicator& communicator, Net& net, const BucketOptions& options,
                           ProgressWatchdog* watchdog)
    : communicator_(communicator), net_(net), watchdog_(watchdog) {
  if (communicator_.size() == 1) return;
  PlanBuckets(options);
  net_.AddBackwardHook([this](int layer_index) { OnLayerBackwardDone(layer_index); });
  thread_ = std::thread([this] { CommunicationLoop(); });
}

DataParallel::~DataParallel() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

// A tensor's gradient is complete after the backward of the lowest-numbered layer that holds it
// (shared parameters have several). Buckets take tensors in the order they complete.
void DataParallel::PlanBuckets(const BucketOptions& options) {
  const std::vector<Tensor*>& params = net_.learnable_params();
  std::vector<int> complete_after(params.size(), 0);
  for (size_t p = 0; p < params.size(); ++p) {
    for (int i = static_cast<int>(net_.layers().size()) - 1; i >= 0; --i) {
      for (const auto& blob : net_.layers()[i]->blobs()) {
        if (blob.get() == params[p]) complete_after[p] = i;
      }
    }
  }
  std::vector<int> order(params.size());
  for (size_t p = 0; p < order.size(); ++p) order[p] = static_cast<int>(p);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return complete_after[a] > complete_after[b]; });
  size_t bytes = 0;  // in the last bucket
  for (int p : order) {
    const size_t param_bytes = static_cast<size_t>(params[p]->count()) * sizeof(float);
    const size_t limit = buckets_.size() == 1 ? options.first_bucket_bytes : options.bucket_bytes;
    if (buckets_.empty() || (bytes > 0 && bytes + param_bytes > limit)) {
      buckets_.emplace_back();
      bytes = 0;
    }
    Bucket& bucket = buckets_.back();
    bucket.params.push_back(p);
    bucket.ready_after_layer = complete_after[p];  // the lowest so far: order is descending
    bytes += param_bytes;
  }
  for (Bucket& bucket : buckets_) {
    size_t count = 0;
    for (int p : bucket.params) count += static_cast<size_t>(params[p]->count());
    bucket.values.resize(count);
  }
}

void DataParallel::OnLayerBackwardDone(int layer_index) {
  if (!status_.ok()) return;
  const std::vector<Tensor*>& params = net_.learnable_params();
  // Hand over every bucket this layer completed.
  while (next_bucket_ < buckets_.size() &&
         buckets_[next_bucket_].ready_after_layer >= layer_index) {
    Bucket& bucket = buckets_[next_bucket_];
    float* packed = bucket.values.data();
    for (int p : bucket.params) {
      packed = std::copy(params[p]->diff(), params[p]->diff() + params[p]->count(), packed);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      handed_over_ = ++next_bucket_;
    }
    changed_.notify_all();
  }
  if (layer_index != 0) return;
  // End of backward: wait for the sums and write the averages back.
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return reduced_ == buckets_.size() || !thread_status_.ok(); });
    status_ = thread_status_;
    handed_over_ = reduced_ = 0;
  }
  next_bucket_ = 0;
  if (!status_.ok()) return;
  const float scale = 1.f / static_cast<float>(communicator_.size());
  for (const Bucket& bucket : buckets_) {
    const float* from = bucket.values.data();
    for (int p : bucket.params) {
      float* diff = params[p]->mutable_diff();
      for (int64_t i = 0; i < params[p]->count(); ++i) diff[i] = from[i] * scale;
      from += params[p]->count();
    }
  }
}

void DataParallel::CommunicationLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stop_ || reduced_ < handed_over_; });
    if (stop_) return;
    Bucket& bucket = buckets_[reduced_];
    lock.unlock();
    if (watchdog_) watchdog_->Begin("the allreduce of a gradient bucket");
    const Status status =
        communicator_.AllreduceSum(bucket.values.data(), static_cast<int64_t>(bucket.values.size()))
            .WithContext("summing the gradients over ranks");
    if (watchdog_) watchdog_->End();
    lock.lock();
    if (!status.ok()) thread_status_ = status;
    ++reduced_;
    changed_.notify_all();
  }
}

Status DataParallel::BroadcastParameters() {
  if (watchdog_) watchdog_->Begin("the broadcast of the parameters from rank 0");
  Status status;
  for (Tensor* p : net_.learnable_params()) {
    status = communicator_.Broadcast(p->mutable_data(), p->count(), 0)
                 .WithContext("broadcasting the parameters from rank 0");
    if (!status.ok()) break;
  }
  if (watchdog_) watchdog_->End();
  return status;
}

}  // namespace dtrain
