// What a failed job's console says about its hosts: which were lost (a rank killed by a signal,
// silent to the others' heartbeat, its daemon or node gone), which ranks were sent SIGTERM, and how
// far training got. `dtrain
// launch --max-restarts` feeds it every line the training's launcher prints and drops the hosts
// it names before restarting. It reads the messages of Open MPI's mpirun ("mpirun noticed that
// process rank 2 with PID 4711 on node n2 exited on signal 9 (Killed)."; "Remote daemon: [[...],2]
// on node n2"), of srun ("srun: error: n2: task 2: Killed", up to its "Terminating StepId=..."
// after which the other tasks it kills are no loss; "srun: error: Node failure on n2") and
// of `dtrain train` ("rank 2 of 3 (host n2, pid 7) received SIGTERM", run/signal_actions.h), of
// dtrain's progress watchdog ("... has made no progress for 10 s ...; missing: rank 2 (host n2):
// silent for 10.3 s": a peer silent for less than half the stall is one the job's end took down
// first, not the cause, and stays). A rank that
// ended with an error of its own (a bad file: its host is fine) names no host. Lines longer than
// 4096 bytes are none of these messages and are not read. Pure; not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dtrain {

class LostHostScanner {
 public:
  void AddLine(const std::string& line);

  // Host -> why it counts as lost (the first reason seen), in name order.
  const std::map<std::string, std::string>& lost() const { return lost_; }
  // The highest "Iteration N" of the console; -1 if none.
  long long last_iteration() const { return last_iteration_; }
  // Whether the training said it stopped early ("Optimization stopped early.": a signal).
  bool stopped_early() const { return stopped_early_; }
  // Host -> why, for the ranks that said they received SIGTERM. Lost only when the job then
  // stopped early and cleanly (a pre-emption notice): mpirun and srun send SIGTERM to the ranks
  // left when they end a failed job, too.
  const std::map<std::string, std::string>& sent_sigterm() const { return sent_sigterm_; }

 private:
  std::map<std::string, std::string> lost_;
  std::map<std::string, std::string> sent_sigterm_;
  long long last_iteration_ = -1;
  bool stopped_early_ = false;
  bool srun_step_ended_ = false;
};

}  // namespace dtrain
