#include "cli/signal_actions.h"

#include <csignal>
#include <cstdio>

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

}  // namespace

std::function<SolverAction()> InstallSignalActions(const std::string& who) {
  struct sigaction action = {};
  action.sa_handler = HandleSignal;
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
