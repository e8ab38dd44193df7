#include "run/signal_actions.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <vector>

#include "core/logging.h"

namespace dtrain {
namespace {

volatile std::sig_atomic_t g_stop_requested = 0;  // the stopping signal; process-wide as signals
volatile std::sig_atomic_t g_snapshot_requested = 0;

void HandleSignal(int signal) {
  if (signal == SIGHUP) {
    g_snapshot_requested = 1;
  } else {
    g_stop_requested = signal;
  }
}

// The handlers run on a stack of their own (SA_ONSTACK), never on the stack of the code they
// interrupt. With oneDNN 3.2, a SIGTERM arriving mid-step corrupted the heap ("corrupted size vs.
// prev_size") or failed the running primitive in 4 of 22 LeNet runs on the handler's default
// stack, and in none of 32 on its own (Debian's oneDNN 2.6: none of 30 either way); where inside
// oneDNN the interrupted code kept data its frame did not cover was not pinned down.
void UseOwnSignalStack() {
  static std::vector<char> stack(std::max<size_t>(SIGSTKSZ, 64 * 1024));
  stack_t own = {};
  own.ss_sp = stack.data();
  own.ss_size = stack.size();
  sigaltstack(&own, nullptr);
}

}  // namespace

std::function<SolverAction()> InstallSignalActions(const std::string& who) {
  UseOwnSignalStack();
  struct sigaction action = {};
  action.sa_handler = HandleSignal;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
  return [who, noticed = false]() mutable {
    if (g_stop_requested) {
      if (!noticed && g_stop_requested == SIGTERM) {
        std::fprintf(stderr, "dtrain train: %s received SIGTERM: snapshotting and stopping\n",
                     who.c_str());
        std::fflush(stderr);
      }
      noticed = true;
      DT_LOG(INFO) << "Stop requested by a signal: snapshotting and stopping.";
      return SolverAction::kStop;
    }
    if (g_snapshot_requested) {
      g_snapshot_requested = 0;
      DT_LOG(INFO) << "Snapshot requested by SIGHUP.";
      return SolverAction::kSnapshot;
    }
    return SolverAction::kNone;
  };
}

}  // namespace dtrain
