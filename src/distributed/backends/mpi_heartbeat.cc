#include "distributed/backends/mpi_heartbeat.h"

#include <algorithm>
#include <cstdio>

namespace dtrain {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(500);
// Silent this long (three missed beats) counts as stopped, dead or cut off. A beat is noticed up
// to one interval after it arrives, so a collective timeout of 3 s still tells the two apart.
constexpr double kSilentSeconds = 1.5;
constexpr int kTag = 1;

}  // namespace

MpiHeartbeat::MpiHeartbeat(MPI_Comm world, std::vector<std::string> hosts)
    : hosts_(std::move(hosts)) {
  MPI_Comm_dup(world, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  peers_.resize(hosts_.size());
  for (Peer& p : peers_) p.heard = Clock::now();
  last_beat_ = Clock::now();
  send_slots_.resize(hosts_.size());
  sent_.assign(hosts_.size(), 0);
  received_.assign(hosts_.size(), 0);
  send_requests_.assign(hosts_.size(), MPI_REQUEST_NULL);
  thread_ = std::thread([this] { Beat(); });
}

MpiHeartbeat::~MpiHeartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_requested_.notify_all();
  thread_.join();
  // Every rank has stopped beating. Each tells each peer how many beats it sent it, then takes
  // exactly the ones still on their way, so nothing is in flight when the communicator goes.
  std::vector<int64_t> expected(peers_.size(), 0);
  MPI_Alltoall(sent_.data(), 1, MPI_INT64_T, expected.data(), 1, MPI_INT64_T, comm_);
  for (int peer = 0; peer < static_cast<int>(peers_.size()); ++peer) {
    for (; received_[peer] < expected[peer]; ++received_[peer]) {
      int64_t entered = 0;
      MPI_Recv(&entered, 1, MPI_INT64_T, peer, kTag, comm_, MPI_STATUS_IGNORE);
    }
  }
  for (MPI_Request& r : send_requests_) {
    if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&comm_);
}

void MpiHeartbeat::Beat() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    // A beat long after the last one: this process itself was stopped or starved meanwhile.
    const Clock::time_point now = Clock::now();
    longest_pause_ =
        std::max(longest_pause_, std::chrono::duration<double>(now - last_beat_).count());
    last_beat_ = now;
    lock.unlock();
    SendToAll();
    ReceiveAll();
    lock.lock();
    stop_requested_.wait_for(lock, kInterval, [this] { return stop_; });
  }
}

void MpiHeartbeat::SendToAll() {
  for (int peer = 0; peer < static_cast<int>(peers_.size()); ++peer) {
    if (peer == rank_) continue;
    MPI_Request& request = send_requests_[peer];
    if (request != MPI_REQUEST_NULL) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (!done) continue;  // the last beat has not left yet: the peer is not reading
    }
    send_slots_[peer] = entered_.load();
    MPI_Isend(&send_slots_[peer], 1, MPI_INT64_T, peer, kTag, comm_, &request);
    ++sent_[peer];
  }
}

void MpiHeartbeat::ReceiveAll() {
  while (true) {
    int waiting = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &waiting, &status);
    if (!waiting) return;
    int64_t entered = 0;
    MPI_Recv(&entered, 1, MPI_INT64_T, status.MPI_SOURCE, kTag, comm_, MPI_STATUS_IGNORE);
    ++received_[status.MPI_SOURCE];
    std::lock_guard<std::mutex> lock(mutex_);
    Peer& peer = peers_[status.MPI_SOURCE];
    peer.heard = Clock::now();
    peer.entered = entered;
    peer.ever_heard = true;
  }
}

std::string MpiHeartbeat::Describe() const {
  const int64_t mine = entered_.load();
  const Clock::time_point now = Clock::now();
  std::string report;
  std::lock_guard<std::mutex> lock(mutex_);
  // Stopped (SIGSTOP, a debugger) and resumed, this rank hears nobody from before its pause and
  // would blame the others: say first that the pause was its own. The beating thread may not yet
  // have run since the resume, hence the time since its last beat.
  const double paused =
      std::max(longest_pause_, std::chrono::duration<double>(now - last_beat_).count());
  if (paused > kSilentSeconds) {
    char what[200];
    std::snprintf(what, sizeof(what),
                  "this rank (%d, host %s) was itself stopped or stalled for %.1f s (its own "
                  "heartbeat paused), so the others may have given up on it",
                  rank_, hosts_[rank_].c_str(), paused);
    report = what;
  }
  for (int r = 0; r < static_cast<int>(peers_.size()); ++r) {
    if (r == rank_) continue;
    const Peer& peer = peers_[r];
    const double silent = std::chrono::duration<double>(now - peer.heard).count();
    char what[160];
    if (silent > kSilentSeconds) {
      std::snprintf(what, sizeof(what), "silent for %.1f s%s", silent,
                    peer.ever_heard ? "" : " (never heard from)");
    } else if (peer.entered < mine) {
      std::snprintf(what, sizeof(what),
                    "alive but has not reached this collective (it has entered %lld, this is "
                    "number %lld)",
                    static_cast<long long>(peer.entered), static_cast<long long>(mine));
    } else {
      continue;
    }
    if (!report.empty()) report += "; ";
    report += "rank " + std::to_string(r) + " (host " + hosts_[r] + "): " + what;
  }
  return report;
}

}  // namespace dtrain
