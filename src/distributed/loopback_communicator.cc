#include "distributed/loopback_communicator.h"

#include <cstdlib>
#include <cstring>

#include "core/check.h"

namespace dtrain {

class LoopbackCommunicator : public Communicator {
 public:
  LoopbackCommunicator(LoopbackGroup& group, int rank) : group_(group), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return group_.size(); }
  std::string host(int r) const override { return "loopback"; }
  std::string description() const override {
    return "loopback (" + std::to_string(group_.size()) + " ranks as threads of one process)";
  }
  Status Broadcast(float* data, int64_t count, int root) override {
    return group_.Meet(rank_, {"Broadcast(float)", data, count, root});
  }
  Status BroadcastBytes(std::string* bytes, int root) override {
    return group_.Meet(rank_, {"BroadcastBytes", bytes, 1, root});
  }
  Status AllreduceSum(float* data, int64_t count) override {
    return group_.Meet(rank_, {"AllreduceSum(float)", data, count, 0});
  }
  Status AllreduceSum(double* data, int64_t count) override {
    return group_.Meet(rank_, {"AllreduceSum(double)", data, count, 0});
  }
  std::string DescribeMissingRanks() const override { return group_.Missing(); }
  // The ranks are this process: ending it ends them all.
  [[noreturn]] void Abort(int exit_code) override { std::_Exit(exit_code); }

 private:
  LoopbackGroup& group_;
  const int rank_;
};

LoopbackGroup::LoopbackGroup(int size) : size_(size), calls_(size), arrived_(size, false) {
  DT_CHECK(size >= 1);
}

std::unique_ptr<Communicator> LoopbackGroup::Rank(int rank) {
  DT_CHECK(rank >= 0 && rank < size_);
  return std::make_unique<LoopbackCommunicator>(*this, rank);
}

int64_t LoopbackGroup::float_allreduces() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return float_allreduces_;
}

int64_t LoopbackGroup::floats_summed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return floats_summed_;
}

void LoopbackGroup::Leave(int rank, const Status& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!left_.empty()) return;  // the first to leave ends the job
  left_ = "rank " + std::to_string(rank) + " left the job: " + why.message();
  done_.notify_all();
}

Status LoopbackGroup::Meet(int rank, const Call& call) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!left_.empty()) return IoError(left_);
  DT_CHECK(!arrived_[rank]);
  calls_[rank] = call;
  arrived_[rank] = true;
  const uint64_t generation = generation_;
  if (++arrivals_ == size_) {
    result_ = Combine();
    arrivals_ = 0;
    arrived_.assign(size_, false);
    ++generation_;
    done_.notify_all();
  } else {
    done_.wait(lock, [&] { return generation_ != generation || !left_.empty(); });
    if (generation_ == generation) {  // woken by a rank leaving: this call never completes
      arrived_[rank] = false;
      --arrivals_;
      return IoError(left_);
    }
  }
  return result_;
}

namespace {

template <typename T>
void Sum(const std::vector<void*>& buffers, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    T sum = static_cast<const T*>(buffers[0])[i];
    for (size_t r = 1; r < buffers.size(); ++r) sum += static_cast<const T*>(buffers[r])[i];
    for (void* b : buffers) static_cast<T*>(b)[i] = sum;
  }
}

}  // namespace

Status LoopbackGroup::Combine() {
  const Call& first = calls_[0];
  for (int r = 1; r < size_; ++r) {
    const Call& c = calls_[r];
    if (std::strcmp(c.kind, first.kind) != 0 || c.count != first.count || c.root != first.root) {
      return InvalidArgument("loopback: rank 0 called " + std::string(first.kind) + " of " +
                             std::to_string(first.count) + " (root " + std::to_string(first.root) +
                             ") but rank " + std::to_string(r) + " called " + c.kind + " of " +
                             std::to_string(c.count) + " (root " + std::to_string(c.root) + ")");
    }
  }
  if (first.root < 0 || first.root >= size_) {
    return InvalidArgument("loopback: root " + std::to_string(first.root) + " is not a rank");
  }
  std::vector<void*> buffers;
  for (const Call& c : calls_) buffers.push_back(c.data);
  const std::string kind = first.kind;
  if (kind == "AllreduceSum(float)") {
    Sum<float>(buffers, first.count);
    ++float_allreduces_;
    floats_summed_ += first.count;
  } else if (kind == "AllreduceSum(double)") {
    Sum<double>(buffers, first.count);
  } else if (kind == "Broadcast(float)") {
    for (int r = 0; r < size_; ++r) {
      if (r == first.root) continue;
      std::memcpy(buffers[r], buffers[first.root], sizeof(float) * first.count);
    }
  } else {
    DT_CHECK(kind == "BroadcastBytes");
    for (int r = 0; r < size_; ++r) {
      if (r != first.root) {
        *static_cast<std::string*>(buffers[r]) =
            *static_cast<const std::string*>(buffers[first.root]);
      }
    }
  }
  return Status::Ok();
}

std::string LoopbackGroup::Missing() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (arrivals_ == 0) return "";
  std::string missing;
  for (int r = 0; r < size_; ++r) {
    if (arrived_[r]) continue;
    if (!missing.empty()) missing += "; ";
    missing += "rank " + std::to_string(r) + " (loopback): has not reached this collective";
  }
  return missing;
}

}  // namespace dtrain
