// ThreadPool: a fixed set of worker threads that run one parallel loop at a time.
//
// ParallelFor(count, fn) calls fn(item, worker) for every item in [0, count) and returns when all
// calls have returned. The calling thread takes part as worker 0; workers 1..size()-1 are the
// pool's threads. Items are handed out one at a time in increasing order, so which worker runs
// an item varies from run to run: fn must make its result depend only on the item (per-worker
// scratch indexed by `worker` is fine). A pool of size 1 has no threads and runs the loop inline.
//
// Lifetime: threads start in the constructor and are joined by the destructor. ParallelFor is
// called from one thread at a time (the owner's); fn runs concurrently on several threads. The
// pool's threads block all signals, which are for the main thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dtrain {

class ThreadPool {
 public:
  // `size` >= 1 workers, the caller included.
  explicit ThreadPool(int size);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return size_; }
  void ParallelFor(int count, const std::function<void(int item, int worker)>& fn);

 private:
  void Run(int worker);
  // Takes items of the current loop until none is left.
  void Work(int worker);

  int size_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(int, int)>* fn_ = nullptr;  // guarded by mutex_
  int count_ = 0;                                      // guarded by mutex_
  int next_ = 0;                                       // guarded by mutex_
  int busy_ = 0;        // workers inside the current loop; guarded by mutex_
  uint64_t round_ = 0;  // bumped for every loop; guarded by mutex_
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace dtrain
