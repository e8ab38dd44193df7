#include "core/thread_pool.h"

#include "core/thread_signals.h"

namespace dtrain {

ThreadPool::ThreadPool(int size) : size_(size > 0 ? size : 1) {
  for (int worker = 1; worker < size_; ++worker)
    threads_.emplace_back(&ThreadPool::Run, this, worker);
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void ThreadPool::ParallelFor(int count, const std::function<void(int, int)>& fn) {
  if (size_ == 1 || count <= 1) {
    for (int item = 0; item < count; ++item) fn(item, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    count_ = count;
    next_ = 0;
    busy_ = 1;  // the caller
    ++round_;
  }
  start_.notify_all();
  Work(0);
  std::unique_lock<std::mutex> lock(mutex_);
  --busy_;
  // Every item is taken; wait for the workers still running theirs.
  done_.wait(lock, [this] { return busy_ == 0; });
  fn_ = nullptr;
}

void ThreadPool::Work(int worker) {
  for (;;) {
    int item;
    const std::function<void(int, int)>* fn;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_ >= count_) return;
      item = next_++;
      fn = fn_;
    }
    (*fn)(item, worker);
  }
}

void ThreadPool::Run(int worker) {
  BlockAsynchronousSignals();
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || (round_ != seen && next_ < count_); });
      if (stopping_) return;
      seen = round_;
      ++busy_;
    }
    Work(worker);
    bool last;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      last = --busy_ == 0;
    }
    if (last) done_.notify_all();
  }
}

}  // namespace dtrain
