#include "distributed/data_parallel.h"

#include <algorithm>
#include <chrono>

namespace dtrain {

DataParallel::DataParallel(Communicator& communicator, Net& net, const BucketOptions& options,
                           ProgressWatchdog* watchdog, Timeline* timeline)
    : communicator_(communicator), net_(net), watchdog_(watchdog), timeline_(timeline) {
  if (communicator_.size() == 1) return;
  PlanBuckets(options);
  for (const auto& layer : net_.layers()) {
    for (size_t b = 0; b < layer->blobs().size(); ++b) {
      if (layer->IsStatistic(static_cast<int>(b))) statistics_.push_back(layer->blobs()[b].get());
    }
  }
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
  size_t total = 0;
  for (const Tensor* p : params) total += static_cast<size_t>(p->count()) * sizeof(float);
  bucket_bytes_ = options.bucket_bytes ? options.bucket_bytes
                                       : std::clamp(total / 8, size_t{1} << 20, size_t{25} << 20);
  const size_t first_bucket_bytes = std::min(options.first_bucket_bytes, bucket_bytes_);
  size_t bytes = 0;  // in the last bucket
  for (int p : order) {
    const size_t param_bytes = static_cast<size_t>(params[p]->count()) * sizeof(float);
    const size_t limit = buckets_.size() == 1 ? first_bucket_bytes : bucket_bytes_;
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
    for (int p : bucket.params) bucket.count += static_cast<size_t>(params[p]->count());
    if (bucket.params.size() > 1) bucket.values.resize(bucket.count);
  }
  for (size_t b = 0; b < buckets_.size(); ++b) {
    buckets_[b].name = "allreduce bucket " + std::to_string(b) + " (" +
                       std::to_string(buckets_[b].count * sizeof(float) >> 10) + " KiB)";
  }
}

void DataParallel::OnLayerBackwardDone(int layer_index) {
  if (!status_.ok() || !exchange_enabled_) return;
  const std::vector<Tensor*>& params = net_.learnable_params();
  // Hand over every bucket this layer completed.
  while (next_bucket_ < buckets_.size() &&
         buckets_[next_bucket_].ready_after_layer >= layer_index) {
    Bucket& bucket = buckets_[next_bucket_];
    if (bucket.values.empty()) {
      // Backward is done with this tensor's gradient: the thread may sum it where it lies.
      bucket.data = params[bucket.params[0]]->mutable_diff();
    } else {
      float* packed = bucket.data = bucket.values.data();
      for (int p : bucket.params) {
        packed = std::copy(params[p]->diff(), params[p]->diff() + params[p]->count(), packed);
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      handed_over_ = ++next_bucket_;
    }
    changed_.notify_all();
  }
  if (layer_index != 0) return;
  // End of backward: wait for the sums and write the averages back.
  const auto wait_start = Timeline::Clock::now();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    // Even after a failure: until the thread is idle it may still be inside a collective.
    changed_.wait(lock, [this] { return reduced_ == handed_over_; });
    status_ = thread_status_;
    handed_over_ = reduced_ = 0;
  }
  const auto wait_end = Timeline::Clock::now();
  wait_seconds_ += std::chrono::duration<double>(wait_end - wait_start).count();
  if (timeline_) timeline_->Add("wait for gradients", Timeline::kTraining, wait_start, wait_end);
  next_bucket_ = 0;
  if (!status_.ok()) return;
  ++exchanges_;
  const float scale = 1.f / static_cast<float>(communicator_.size());
  for (const Bucket& bucket : buckets_) {
    const float* from = bucket.data;
    for (int p : bucket.params) {
      float* diff = params[p]->mutable_diff();  // == from for a one-tensor bucket
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
    if (!thread_status_.ok()) {  // after a failure, the remaining buckets are only counted
      ++reduced_;
      changed_.notify_all();
      continue;
    }
    Bucket& bucket = buckets_[reduced_];
    lock.unlock();
    if (watchdog_) watchdog_->Begin("the allreduce of a gradient bucket");
    const auto start = Timeline::Clock::now();
    const Status status =
        communicator_.AllreduceSum(bucket.data, static_cast<int64_t>(bucket.count))
            .WithContext("summing the gradients over ranks");
    if (watchdog_) watchdog_->End();
    if (timeline_) {
      timeline_->Add(bucket.name.c_str(), Timeline::kCommunication, start, Timeline::Clock::now());
    }
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

// The statistics tensors are packed into one buffer: one allreduce instead of three per layer.
Status DataParallel::SynchronizeStatistics() {
  if (communicator_.size() == 1 || statistics_.empty()) return Status::Ok();
  statistics_values_.clear();
  for (const Tensor* t : statistics_) {
    statistics_values_.insert(statistics_values_.end(), t->data(), t->data() + t->count());
  }
  if (watchdog_) watchdog_->Begin("the allreduce of the BatchNorm statistics");
  status_ =
      communicator_
          .AllreduceSum(statistics_values_.data(), static_cast<int64_t>(statistics_values_.size()))
          .WithContext("averaging the BatchNorm statistics over ranks");
  if (watchdog_) watchdog_->End();
  if (!status_.ok()) return status_;
  const float scale = 1.f / static_cast<float>(communicator_.size());
  const float* from = statistics_values_.data();
  for (Tensor* t : statistics_) {
    float* to = t->mutable_data();
    for (int64_t i = 0; i < t->count(); ++i) to[i] = from[i] * scale;
    from += t->count();
  }
  return Status::Ok();
}

SolverAction DataParallel::AgreeOnAction(SolverAction local) {
  if (communicator_.size() == 1 || !status_.ok()) return status_.ok() ? local : SolverAction::kStop;
  float votes[2] = {local == SolverAction::kStop ? 1.f : 0.f,
                    local == SolverAction::kSnapshot ? 1.f : 0.f};
  if (watchdog_) watchdog_->Begin("agreeing on the next step (stop, snapshot or go on)");
  status_ = communicator_.AllreduceSum(votes, 2).WithContext("agreeing on the next step");
  if (watchdog_) watchdog_->End();
  if (!status_.ok() || votes[0] > 0) return SolverAction::kStop;
  return votes[1] > 0 ? SolverAction::kSnapshot : SolverAction::kNone;
}

double DataParallel::TakeWaitSeconds() {
  const double seconds = wait_seconds_;
  wait_seconds_ = 0;
  return seconds;
}

std::vector<DataParallel::BucketInfo> DataParallel::bucket_plan() const {
  std::vector<BucketInfo> plan;
  for (const Bucket& b : buckets_) plan.push_back({b.count * sizeof(float), b.ready_after_layer});
  return plan;
}

Status DataParallel::ExchangeGradientsNow() {
  for (int i = static_cast<int>(net_.layers().size()) - 1; i >= 0; --i) OnLayerBackwardDone(i);
  return status_;
}

}  // namespace dtrain
