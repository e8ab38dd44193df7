// MpiHeartbeat: every rank tells every other rank, twice a second, that it is alive and how many
// collectives it has entered, on a communicator of its own. When a collective stalls, this is
// what names the ranks it waits for: a stopped process or a cut link falls silent; a rank that
// is alive but busy elsewhere has entered fewer collectives.
//
// Needs MPI_THREAD_MULTIPLE: its thread sends and receives while another thread may be blocked
// in a collective. Entered is called as every collective starts; Describe from any thread.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dtrain {

class MpiHeartbeat {
 public:
  // Collective over `world` (duplicates it); `hosts[r]` names rank r's host in reports.
  MpiHeartbeat(MPI_Comm world, std::vector<std::string> hosts);
  // Collective too: every rank stops beating, takes the beats still in flight to it, then the
  // private communicator is freed.
  ~MpiHeartbeat();
  MpiHeartbeat(const MpiHeartbeat&) = delete;
  MpiHeartbeat& operator=(const MpiHeartbeat&) = delete;

  void Entered() { entered_.fetch_add(1); }
  // "rank 1 (host n1): silent for 62.0 s; rank 2 (host n2): alive but has not reached this
  // collective (it has entered 40, this is number 41)"; empty if nobody looks missing. Led by
  // "this rank (1, host n1) was itself stopped or stalled for 62.0 s ..." when this process's
  // own heartbeat paused (it was stopped and resumed), so that it does not blame the others.
  std::string Describe() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Peer {
    Clock::time_point heard;  // last heartbeat received (start time until the first)
    int64_t entered = 0;      // collectives it had entered then
    bool ever_heard = false;
  };
  void Beat();
  void SendToAll();
  void ReceiveAll();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::vector<std::string> hosts_;
  std::atomic<int64_t> entered_{0};

  mutable std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stop_ = false;
  std::vector<Peer> peers_;
  Clock::time_point last_beat_;      // when this rank's beating thread last ran
  double longest_pause_ = 0;         // the longest gap between two of its runs, in seconds
  std::vector<int64_t> send_slots_;  // one in-flight message per peer
  std::vector<MPI_Request> send_requests_;
  // Beats sent to and received from each peer (the beating thread's, then the destructor's).
  std::vector<int64_t> sent_, received_;
  std::thread thread_;
};

}  // namespace dtrain
